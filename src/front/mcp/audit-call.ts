import { sha256 } from '../../guard/hash.js';
import type { AuditRecord } from '../../audit/record.js';
import type { Via } from '../../link/via.js';
import type { RpcRequest } from '../../rpc/jsonrpc.js';
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
  /** The result's (or error's) text as it goes back to the lane. */
  out: string;
}

/** What the transport knows about the request (the lane's token and session, its body). */
export interface CallOrigin {
  tokenId?: string | undefined;
  holder?: string | undefined;
  bodyText?: string | undefined;
  hashArguments?: boolean;
}

/** A URI without its query or fragment (they may carry arguments); names as they are. Bounded. */
const nameOf = (method: string, target: string): string => {
  const t = method === 'tools/call' || method === 'prompts/get' ? target : (target.split(/[?#]/, 1)[0] ?? '');
  return t.length > 200 ? `${t.slice(0, 200)}…` : t;
};

/** The audit record of one forwarded request (pure apart from the clock and a hash). */
export const auditRecord = (lane: string, req: RpcRequest, o: CallOrigin, end: CallEnd): AuditRecord => {
  const args = req.params?.arguments ?? req.params?.argument;
  return {
    time: new Date().toISOString(),
    lane,
    ...(o.tokenId ? { tokenId: o.tokenId } : {}),
    // A reference, not the id: the file must not hold what opens a lane's session.
    ...(o.holder ? { session: sha256(o.holder).slice(0, 16) } : {}),
    server: end.server,
    method: req.method,
    ...(end.target ? { name: nameOf(req.method, end.target) } : {}),
    ...(end.via ? { placement: end.via.placement, ...(end.via.pid !== undefined ? { pid: end.via.pid } : {}) } : {}),
    outcome: end.outcome,
    ...(end.errorCode !== undefined ? { errorCode: end.errorCode } : {}),
    ...(end.error ? { error: end.error } : {}),
    durationMs: Math.round(end.seconds * 1e6) / 1e3,
    bytesIn: o.bodyText === undefined ? 0 : Buffer.byteLength(o.bodyText),
    bytesOut: Buffer.byteLength(end.out),
    ...(o.hashArguments && args !== undefined ? { argsHash: sha256(JSON.stringify(args)) } : {}),
  };
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
