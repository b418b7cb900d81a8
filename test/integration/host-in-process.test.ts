import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hostConfigFor } from '../../src/front/hosts/host-config.js';
import { type ServedHost, serveHost } from '../../src/host/main.js';
import { CALLER_META } from '../../src/link/config.js';
import { memoryLink } from '../../src/link/memory.js';
import { LINK, META } from '../../src/link/protocol.js';
import { liteLogger } from '../../src/log/lite.js';
import { loadPolicy } from '../../src/policy/load.js';
import { LinePeer } from '../../src/rpc/peer.js';
import type { RpcNotification } from '../../src/rpc/jsonrpc.js';
import { FIXTURE, policyHead, tempDir } from '../helpers/gateway.js';

/**
 * A Host run in this process over the link's memory transport, spoken to as the front speaks to
 * it (src/link/protocol.ts): real upstream processes, no front, no host process.
 */
describe('a host in process, over the memory link', () => {
  let served: ServedHost;
  let front: LinePeer;
  const notes: RpcNotification[] = [];
  const caller = (lane: string, era = 'legacy') => ({ _meta: { [CALLER_META]: { lane, era, holder: 's1' } } });

  before(() => {
    const dir = tempDir('host-in-process');
    const file = path.join(dir, 'policy.yaml');
    writeFileSync(
      file,
      `${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
  fix: { prefix: fix, domain: public, stdio: { command: node, args: ["${FIXTURE}"] } }
  bad: { prefix: bad, domain: public, stdio: { command: node, args: ["${FIXTURE}", "--poison"] } }
lanes:
  one: { servers: [fix, bad] }
  two: { servers: [fix] }
`,
    );
    const policy = loadPolicy(file).policy;
    assert.ok(policy, 'policy loads');
    const link = memoryLink();
    served = serveHost(hostConfigFor(policy, 'public', 'public', undefined, {}), link.host, liteLogger('host:test', 'silent'));
    front = new LinePeer(link.front.input, link.front.output, { onNotification: (n) => notes.push(n) });
  });
  after(async () => served.close());

  it('answers initialize, lists a lane its own servers, and calls through to the real upstream', async () => {
    await front.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } });
    const two = await front.request('tools/list', caller('two'));
    const names = (two.tools as { name: string }[]).map((t) => t.name);
    assert.ok(names.includes('fix_echo'));
    assert.ok(!names.some((n) => n.startsWith('bad_')), 'lane two has no bad');
    const r = await front.request('tools/call', { name: 'fix_echo', arguments: { text: 'over memory' }, ...caller('two') });
    assert.match(JSON.stringify(r), /over memory/);
  });

  it("reports the guard's refusal as a typed notification and the absence as a code", async () => {
    const one = await front.request('tools/list', caller('one'));
    const absent = (one._meta as Record<string, { server: string; code: string; item?: string }[]>)[META.absent] ?? [];
    assert.deepEqual(
      absent.map((a) => [a.server, a.code, a.item]),
      [['bad', 'refused', 'echo']],
    );
    const guard = notes.find((n) => n.method === LINK.guard && n.params?.server === 'bad');
    assert.equal(guard?.params?.status, 'refused');
  });

  it('refuses a lane it does not serve, and a name outside the lane', async () => {
    await assert.rejects(front.request('tools/list', caller('nobody')), /not served by this host/);
    await assert.rejects(front.request('tools/call', { name: 'bad_echo', arguments: { text: 'x' }, ...caller('two') }), /catalog/);
  });
});
