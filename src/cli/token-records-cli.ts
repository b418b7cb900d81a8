import type { Policy } from '../policy/model.js';
import { readTokenRecords, type TokenRecords, updateTokenRecords } from '../records/token-records.js';

const APPLIED = 'a running gateway refuses it within a second and ends its open sessions; no reload needed';

/** The state of one issued token at `now`. */
const stateOf = (r: TokenRecords, t: { id: string; lane: string; issued: string; expires: string }, now: number): string => {
  const revoked = r.revoked[t.id];
  if (revoked) return `revoked ${revoked}`;
  const cut = r.laneCutoffs[t.lane];
  if (cut && Date.parse(t.issued) < Date.parse(cut)) return `revoked ${cut} (lane)`;
  return Date.parse(t.expires) <= now ? 'expired' : 'active';
};

/** `lanegate token list`: every recorded token (id, lane, issued, expires, revoked); never a token itself. */
export const runTokenList = (policy: Policy, lane: string | undefined, json: boolean, now = Date.now()): number => {
  const r = readTokenRecords(policy.gateway.stateDir);
  const rows = r.issued.filter((t) => lane === undefined || t.lane === lane).map((t) => ({ ...t, state: stateOf(r, t, now) }));
  if (json) {
    process.stdout.write(`${JSON.stringify({ tokens: rows, laneCutoffs: r.laneCutoffs }, null, 2)}\n`);
    return 0;
  }
  if (rows.length === 0) {
    process.stdout.write(`no tokens recorded${lane ? ` for lane "${lane}"` : ''}: lanegate token issue --lane LANE makes one\n`);
    return 0;
  }
  const w = Math.max(4, ...rows.map((t) => t.lane.length));
  process.stdout.write(`${'id'.padEnd(36)}  ${'lane'.padEnd(w)}  ${'issued'.padEnd(20)}  ${'expires'.padEnd(20)}  state\n`);
  const day = (s: string): string => `${s.slice(0, 19)}Z`;
  for (const t of rows) process.stdout.write(`${t.id.padEnd(36)}  ${t.lane.padEnd(w)}  ${day(t.issued)}  ${day(t.expires)}  ${t.state}\n`);
  for (const [l, at] of Object.entries(r.laneCutoffs))
    if (lane === undefined || l === lane) process.stdout.write(`lane "${l}": every token issued before ${at} is refused\n`);
  return 0;
};

/**
 * `lanegate token revoke ID | --lane L`: recorded in the state dir (records/tokens.json), which the
 * running gateway follows. A lane revocation refuses every token of the lane issued until now,
 * recorded or not (tokens issued before records were kept too).
 */
export const runTokenRevoke = (policy: Policy, id: string | undefined, lane: string | undefined, now = new Date()): number => {
  const at = now.toISOString();
  if (lane !== undefined) {
    if (!policy.lanes[lane]) {
      process.stderr.write(`lane "${lane}" is not in the policy (lanes: ${Object.keys(policy.lanes).join(', ') || 'none'})\n`);
      return 1;
    }
    let n = 0;
    updateTokenRecords(policy.gateway.stateDir, (r) => {
      for (const t of r.issued)
        if (t.lane === lane && !r.revoked[t.id]) {
          r.revoked[t.id] = at;
          n += 1;
        }
      r.laneCutoffs[lane] = at;
    });
    process.stdout.write(`revoked every token of lane "${lane}" issued before ${at} (${n} recorded); ${APPLIED}\n`);
    process.stdout.write(`new tokens for the lane work as before: lanegate token issue --lane ${lane}\n`);
    return 0;
  }
  const tokenId = id ?? '';
  let known: { lane: string } | undefined;
  let already: string | undefined;
  updateTokenRecords(policy.gateway.stateDir, (r) => {
    known = r.issued.find((t) => t.id === tokenId);
    already = r.revoked[tokenId];
    if (!already) r.revoked[tokenId] = at;
  });
  if (already) {
    process.stdout.write(`token ${tokenId} was already revoked at ${already}\n`);
    return 0;
  }
  if (!known)
    process.stderr.write(
      `warning: ${tokenId} is not in the token records (a typo, or issued before they were kept); revoked anyway. lanegate token list shows the recorded ids\n`,
    );
  process.stdout.write(`revoked token ${tokenId}${known ? ` (lane "${known.lane}")` : ''}; ${APPLIED}\n`);
  return 0;
};
