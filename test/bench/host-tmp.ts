import { execa } from 'execa';
import { LinePeer } from '../../src/rpc/peer.js';
import { CLI, FIXTURE } from '../helpers/gateway.js';
const cfg = {
  key: 'public',
  domain: 'public',
  stateDir: '/tmp/lg-host-bench',
  secrets: [],
  placements: { fix: 'dedicated' },
  lanes: { bench: ['fix'] },
  servers: [
    {
      name: 'fix',
      prefix: 'fix',
      domain: 'public',
      enabled: true,
      share: 'auto',
      perLaneLaunch: false,
      idleMs: 300000,
      callTimeoutMs: 60000,
      transport: { kind: 'stdio', command: 'node', commandPath: process.execPath, args: [FIXTURE], env: {} },
    },
  ],
};
const child = execa(process.execPath, [CLI, 'host'], {
  env: { LANEGATE_HOST_CONFIG: JSON.stringify(cfg), PATH: process.env.PATH ?? '' },
  extendEnv: false,
  stdin: 'pipe',
  stdout: 'pipe',
  stderr: 'inherit',
  buffer: false,
  reject: false,
});
const peer = new LinePeer(child.stdout as never, child.stdin as never);
await peer.request('initialize', {});
const p = { name: 'fix_echo', arguments: { text: 'hi' }, _meta: { 'lanegate/caller': { lane: 'bench' } } };
for (let i = 0; i < 300; i++) await peer.request('tools/call', p);
const lat: number[] = [];
for (let i = 0; i < 3000; i++) {
  const t = performance.now();
  await peer.request('tools/call', p);
  lat.push(performance.now() - t);
}
lat.sort((a, b) => a - b);
console.log('front->host->child p50', lat[1500]?.toFixed(3), 'p99', lat[2970]?.toFixed(3));
child.kill();
