import type { WireParts } from '../../rpc/parts.js';
import { byteLengthOf } from '../../rpc/parts-text.js';
import { sha256 } from '../../guard/hash.js';
import type { AuditRecord } from '../../audit/record.js';
import type { Via } from '../../link/via.js';
import type { RpcRequest } from '../../rpc/jsonrpc.js';
import type { RawResult } from '../../rpc/raw.js';
import type { CallContext } from './call-context.js';

/** What dispatch knows about a forwarded request when it ends. */
export interface CallEnd {
  server: string;
  target: string;
  seconds: number;
  via?: Via | undefined;
  outcome: AuditRecord['outcome'];
  errorCode?: number;
  error?: string;
  /** The result (its text, never joined: a large one as its parts) or the error's text, as it goes back to the lane. */
  out: string | RawResult;
}

/** What the transport knows about the request (the lane's token and session, its body). */
export interface CallOrigin {
  tokenId?: string | undefined;
  holder?: string | undefined;
  bodyText?: string | WireParts | undefined;
  hashArguments?: boolean;
}

/** A URI without its query or fragment (they may carry arguments); names as they are. Bounded. */
const nameOf = (method: string, target: string): string => {
  const t = method === 'tools/call' || method === 'prompts/get' ? target : (target.split(/[?#]/, 1)[0] ?? '');
  return t.length > 200 ? `${t.slice(0, 200)}…` : t;
};

/**
 * A session's reference in the audit trail (a hash of its id, never the id). The last few are
 * kept: a session makes many calls, and hashing its id on each showed in the small-call profile.
 */
const sessionRefs = new Map<string, string>();
const sessionRef = (holder: string): string => {
  let ref = sessionRefs.get(holder);
  if (ref === undefined) {
    if (sessionRefs.size >= 1024) sessionRefs.clear();
    ref = sha256(holder).slice(0, 16);
    sessionRefs.set(holder, ref);
  }
  return ref;
};

/**
 * The audit record of one forwarded request (pure apart from the clock and a hash). Built by
 * assignment, in the file's key order: it runs on every call (the spread-per-field form showed in
 * the small-call profile).
 */
export const auditRecord = (lane: string, req: RpcRequest, o: CallOrigin, end: CallEnd): AuditRecord => {
  const r = { time: new Date().toISOString(), lane } as AuditRecord;
  if (o.tokenId) r.tokenId = o.tokenId;
  // A reference, not the id: the file must not hold what opens a lane's session.
  if (o.holder) r.session = sessionRef(o.holder);
  r.server = end.server;
  r.method = req.method;
  if (end.target) r.name = nameOf(req.method, end.target);
  if (end.via) {
    r.placement = end.via.placement;
    if (end.via.pid !== undefined) r.pid = end.via.pid;
  }
  r.outcome = end.outcome;
  if (end.errorCode !== undefined) r.errorCode = end.errorCode;
  if (end.error) r.error = end.error;
  r.durationMs = Math.round(end.seconds * 1e6) / 1e3;
  r.bytesIn = o.bodyText === undefined ? 0 : byteLengthOf(typeof o.bodyText === 'string' ? [o.bodyText] : o.bodyText);
  r.bytesOut = typeof end.out === 'string' ? Buffer.byteLength(end.out) : end.out.bytes;
  const args = req.params?.arguments ?? req.params?.argument;
  if (o.hashArguments && args !== undefined) r.argsHash = sha256(JSON.stringify(args));
  return r;
};

/**
 * The audit hook of one forwarded request, or undefined when nothing records (audit off): the
 * request's origin taken now, the record built when it ends.
 */
export const auditorOf = (
  d: {
    onAudit?: ((r: AuditRecord) => void) | undefined;
    policy: () => { gateway: { audit: { enabled: boolean; hashArguments: boolean } } };
  },
  x: Pick<CallContext, 'lane' | 'tokenId' | 'holder' | 'bodyText'>,
  req: RpcRequest,
  server: string,
  target: string,
  seconds: () => number,
): ((end: Omit<CallEnd, 'server' | 'target' | 'seconds'>) => void) | undefined => {
  const a = d.policy().gateway.audit;
  const on = d.onAudit;
  if (!on || !a.enabled) return undefined;
  const origin: CallOrigin = { tokenId: x.tokenId, holder: x.holder, bodyText: x.bodyText, hashArguments: a.hashArguments };
  return (end) => on(auditRecord(x.lane, req, origin, { server, target, seconds: seconds(), ...end }));
};
