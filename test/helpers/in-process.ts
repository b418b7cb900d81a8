import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensureSigningKey, loadPublicKeys, loadSigningKey } from '../../src/auth/keys.js';
import { issueLaneToken } from '../../src/auth/tokens.js';
import { Gateway } from '../../src/front/gateway.js';
import type { HostLauncher } from '../../src/front/hosts/hosts.js';
import { ensureOperatorToken } from '../../src/front/operator/operator.js';
import { serveHost } from '../../src/host/main.js';
import { memoryLink } from '../../src/link/memory.js';
import { liteLogger } from '../../src/log/lite.js';
import { createLogger } from '../../src/log/logger.js';
import { loadPolicy } from '../../src/policy/load.js';
import type { Exit } from '../../src/supervision/spawn.js';
import { tempDir } from './gateway.js';

/** Hosts run in this process over the memory link: the front's HostManager cannot tell. */
export const inProcessHosts: HostLauncher = (key, cfg, env) => {
  const link = memoryLink();
  const served = serveHost(cfg, link.host, liteLogger(`host:${key}`, 'silent'), env);
  let done = false;
  let resolve: (e: Exit) => void = () => undefined;
  const exited = new Promise<Exit>((r) => {
    resolve = r;
  });
  const end = async (signal: NodeJS.Signals | null): Promise<void> => {
    if (done) return;
    done = true;
    await served.close();
    link.host.output.end();
    resolve({ exitCode: signal ? null : 0, signal });
  };
  // The front closing the link is the polite stop, as for a host process.
  link.host.input.on('end', () => void end(null));
  return {
    stdin: link.front.output,
    stdout: link.front.input,
    pid: process.pid,
    exited,
    kill: (sig) => void end(sig),
    ended: () => done,
  };
};

export interface InProcessGateway {
  gw: Gateway;
  url: string;
  token: (lane: string) => Promise<string>;
  stop: () => Promise<void>;
}

/** The whole gateway in this process: the front's HTTP server and in-process hosts; upstreams are real processes. */
export const startInProcess = async (policyYaml: string): Promise<InProcessGateway> => {
  const dir = tempDir('in-process');
  const file = path.join(dir, 'policy.yaml');
  writeFileSync(file, policyYaml);
  const { policy, problems } = loadPolicy(file);
  if (!policy) throw new Error(`policy: ${JSON.stringify(problems)}`);
  mkdirSync(policy.gateway.stateDir, { recursive: true });
  await ensureSigningKey(policy.gateway.stateDir);
  const keys = await loadPublicKeys(policy.gateway.stateDir);
  const op = ensureOperatorToken(policy.gateway.stateDir);
  const gw = new Gateway({
    policy,
    publicKeys: keys,
    operatorHash: op.hash,
    log: createLogger('front', 'silent'),
    port: 0,
    launchHost: inProcessHosts,
  });
  const url = await gw.listen();
  const { kid, key } = await loadSigningKey(policy.gateway.stateDir);
  return {
    gw,
    url,
    token: async (lane) =>
      (await issueLaneToken({ lane, ttlSeconds: 600, issuer: policy.gateway.issuer, audience: policy.gateway.audience, kid, key })).token,
    stop: () => gw.close(),
  };
};
