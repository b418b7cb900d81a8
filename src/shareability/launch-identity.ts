import path from 'node:path';
import type { Policy, ServerConfig } from '../policy/model.js';
import { binaryFingerprint } from './fingerprint.js';
import { launchIdentity } from './identity.js';

/** The identity of a server's SHARED launch (lane-independent), as its host would run it. */
export const identityOf = (policy: Policy, s: ServerConfig): string => {
  const secretNames = (policy.domains[s.domain]?.secrets ?? []).map((x) => x.name);
  if (s.transport.kind === 'http') {
    return launchIdentity({
      commandPath: 'http',
      args: [s.transport.url],
      env: s.transport.headers,
      secretNames,
      cwd: '',
      fingerprint: 'http',
    });
  }
  const t = s.transport;
  return launchIdentity({
    commandPath: t.commandPath,
    args: t.args,
    env: t.env,
    secretNames,
    cwd: path.join(policy.gateway.stateDir, 'work', s.domain, s.name),
    fingerprint: binaryFingerprint(t.commandPath, t.args),
  });
};
