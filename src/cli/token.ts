import { ensureSigningKey, loadSigningKey } from '../auth/keys.js';
import { parseDuration } from '../auth/duration.js';
import { issueLaneToken } from '../auth/tokens.js';
import { LanegateError } from '../errors.js';
import type { Policy } from '../policy/model.js';
import { CONFIG_HOME, type ConfigFormat, laneConfig } from './lane-config.js';
import { gatewayBase } from './operator-api.js';
import { updateTokenRecords } from '../records/token-records.js';

export interface IssueArgs {
  lane: string;
  ttl: string;
  url?: string;
  format: ConfigFormat;
  quiet?: boolean;
}

/**
 * Issues a lane token and records it (recorded before it is shown: a token nobody can list is a
 * token nobody revokes by id). What `token issue` does before it prints; the test helper calls it
 * in-process instead of spawning the CLI per token.
 */
export const issueRecordedToken = async (
  policy: Policy,
  laneName: string,
  ttl: string,
): Promise<{ token: string; jti: string; exp: number }> => {
  const lane = policy.lanes[laneName];
  if (!lane)
    throw new LanegateError('bad_request', `lane "${laneName}" is not in the policy (lanes: ${Object.keys(policy.lanes).join(', ')})`);
  if (!lane.enabled) throw new LanegateError('bad_request', `lane "${laneName}" is disabled in the policy`);
  await ensureSigningKey(policy.gateway.stateDir);
  const { kid, key } = await loadSigningKey(policy.gateway.stateDir);
  const issued = await issueLaneToken({
    lane: laneName,
    ttlSeconds: parseDuration(ttl),
    issuer: policy.gateway.issuer,
    audience: policy.gateway.audience,
    kid,
    key,
  });
  updateTokenRecords(policy.gateway.stateDir, (r) => {
    r.issued.push({
      id: issued.jti,
      lane: laneName,
      kid,
      issued: new Date().toISOString(),
      expires: new Date(issued.exp * 1000).toISOString(),
    });
  });
  return issued;
};

/** `lanegate token issue`: the only command that reads the private signing key. */
export const runTokenIssue = async (policy: Policy, a: IssueArgs): Promise<number> => {
  const { token, jti, exp } = await issueRecordedToken(policy, a.lane, a.ttl);
  const lane = policy.lanes[a.lane] as NonNullable<Policy['lanes'][string]>;
  const url = a.url ?? `${gatewayBase(policy)}/mcp`;
  if (a.quiet) {
    process.stdout.write(`${token}\n`);
    process.stderr.write(`token id ${jti} (lane "${a.lane}"): lanegate token list shows it, lanegate token revoke ${jti} revokes it\n`);
    return 0;
  }
  process.stdout.write(
    `# lane "${a.lane}" (token id ${jti}, expires ${new Date(exp * 1000).toISOString()}; servers: ${lane.servers.join(', ') || 'none'})\n` +
      `# for ${CONFIG_HOME[a.format]}\n` +
      `${laneConfig(a.format, 'lanegate', url, token)}\n`,
  );
  return 0;
};
