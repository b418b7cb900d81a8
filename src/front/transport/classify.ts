/**
 * Which era an inbound POST belongs to, decided from its body (and checked against its headers),
 * before anything else reads it. Pure, and written for the front's hot path: plain property
 * checks, no schema library (the SDK's classifier costs the front its zod and 20+ MB of RSS).
 *
 * The rules are the 2026-07-28 revision's: a message claims the per-request era when its
 * `params._meta` carries the protocol-version key; a malformed claim is an error, never a silent
 * fall back; `initialize` without a valid modern claim is the handshake; a modern
 * MCP-Protocol-Version header on a message that does not claim the era is an error. A unit test
 * compares every outcome with the SDK's classifier over generated inputs.
 */
import { ERR } from '../../rpc/jsonrpc.js';
import { isObject, validEnvelope, VERSION_KEY } from './envelope.js';
import { isProgressToken } from '../mcp/progress-token.js';
import { MODERN_REVISION } from '../../upstream/conn.js';
import { RELATED_TASK } from '../../link/protocol.js';
import { shownName } from '../../log/escape.js';

export type LegacyReason = 'initialize' | 'no-claim' | 'notification' | 'response' | 'batch';
export type Classified =
  | { kind: 'legacy'; reason: LegacyReason; requestedVersion?: string }
  | {
      kind: 'modern';
      messageKind: 'request' | 'notification';
      message: { jsonrpc: '2.0'; id?: string | number; method: string; params?: Record<string, unknown> };
      revision?: string;
    }
  | { kind: 'reject'; httpStatus: number; code: number; message: string; data?: unknown };

export interface Inbound {
  body: unknown;
  protocolVersionHeader?: string | undefined;
  mcpMethodHeader?: string | undefined;
}

const isModern = (v: string): boolean => v >= MODERN_REVISION;
const isId = (v: unknown): boolean => typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));
const onlyKeys = (o: Record<string, unknown>, allowed: ReadonlySet<string>): boolean => Object.keys(o).every((k) => allowed.has(k));

/** Header values lose RFC 9110 optional whitespace (spaces and tabs) at both ends. */
export const stripOws = (v: string | undefined): string | undefined => (v === undefined ? undefined : v.replace(/^[ \t]+|[ \t]+$/g, ''));

/** `params` as JSON-RPC messages may carry it: absent, or an object whose `_meta` is well formed. */
const goodParams = (params: unknown): boolean => {
  if (params === undefined) return true;
  if (!isObject(params)) return false;
  const meta = params._meta;
  if (meta === undefined) return true;
  if (!isObject(meta)) return false;
  if (meta.progressToken !== undefined && !isProgressToken(meta.progressToken)) return false;
  const task = meta[RELATED_TASK];
  return task === undefined || (isObject(task) && typeof task.taskId === 'string');
};

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const NOTIFICATION_KEYS = new Set(['jsonrpc', 'method', 'params']);
const RESULT_KEYS = new Set(['jsonrpc', 'id', 'result']);
const ERROR_KEYS = new Set(['jsonrpc', 'id', 'error']);

const isRequestShape = (b: Record<string, unknown>): boolean =>
  b.jsonrpc === '2.0' && isId(b.id) && typeof b.method === 'string' && goodParams(b.params) && onlyKeys(b, REQUEST_KEYS);
const isNotificationShape = (b: Record<string, unknown>): boolean =>
  b.jsonrpc === '2.0' && typeof b.method === 'string' && goodParams(b.params) && onlyKeys(b, NOTIFICATION_KEYS);
const isResponseShape = (b: Record<string, unknown>): boolean => {
  if (b.jsonrpc !== '2.0') return false;
  if ('result' in b) return isId(b.id) && isObject(b.result) && onlyKeys(b, RESULT_KEYS) && resultMetaOk(b.result);
  if (!('error' in b) || (b.id !== undefined && !isId(b.id)) || !onlyKeys(b, ERROR_KEYS)) return false;
  const e = b.error;
  return isObject(e) && typeof e.code === 'number' && Number.isInteger(e.code) && typeof e.message === 'string';
};
const resultMetaOk = (result: Record<string, unknown>): boolean => result._meta === undefined || isObject(result._meta);

const reject = (code: number, message: string, data?: unknown): Classified => ({
  kind: 'reject',
  httpStatus: 400,
  code,
  message,
  ...(data !== undefined ? { data } : {}),
});
const mismatch = (header: string, body: string): Classified =>
  reject(ERR.headerMismatch, `Bad Request: the request headers and body disagree: ${body}`, { mismatch: { header, body } });

const metaOf = (params: unknown): Record<string, unknown> | undefined =>
  isObject(params) && isObject(params._meta) ? params._meta : undefined;
const claimOf = (params: unknown): { claims: boolean; version?: string } => {
  const meta = metaOf(params);
  if (!meta || !(VERSION_KEY in meta)) return { claims: false };
  const v = meta[VERSION_KEY];
  return typeof v === 'string' ? { claims: true, version: v } : { claims: true };
};

export const classifyInbound = (r: Inbound): Classified => {
  const req = { ...r, protocolVersionHeader: stripOws(r.protocolVersionHeader), mcpMethodHeader: stripOws(r.mcpMethodHeader) };
  const body = req.body;
  if (Array.isArray(body)) return classifyBatch(body);
  if (!isObject(body)) return reject(ERR.invalidRequest, 'Bad Request: the request body is not a valid JSON-RPC message');
  if (isResponseShape(body)) return { kind: 'legacy', reason: 'response' };
  if (isRequestShape(body)) return classifyRequest(req, body);
  if (isNotificationShape(body)) return classifyNotification(req, body);
  return reject(ERR.invalidRequest, 'Bad Request: the request body is not a valid JSON-RPC message');
};

const classifyBatch = (body: unknown[]): Classified => {
  if (body.length === 0) return reject(ERR.invalidRequest, 'Bad Request: empty JSON-RPC batch');
  for (const el of body) {
    if (claimOf(isObject(el) ? el.params : undefined).claims)
      return reject(ERR.invalidRequest, 'Bad Request: JSON-RPC batches may not contain requests for protocol revision 2026-07-28 or later');
    if (!isObject(el) || !(isRequestShape(el) || isNotificationShape(el) || isResponseShape(el)))
      return reject(ERR.invalidRequest, 'Bad Request: JSON-RPC batch contains an invalid message');
  }
  return { kind: 'legacy', reason: 'batch' };
};

type Message = Extract<Classified, { kind: 'modern' }>['message'];

const classifyRequest = (r: Inbound, body: Record<string, unknown>): Classified => {
  const msg = body as unknown as Message;
  const header = r.protocolVersionHeader;
  const headerModern = header !== undefined && isModern(header);
  const claim = claimOf(msg.params);
  const envelopeProblem = claim.claims ? validEnvelope(metaOf(msg.params) ?? {}) : undefined;
  if (msg.method === 'initialize' && !(claim.version !== undefined && isModern(claim.version) && envelopeProblem === undefined)) {
    if (headerModern)
      return mismatch(header, 'an initialize request (legacy handshake) was sent with a modern MCP-Protocol-Version header');
    const v = msg.params?.protocolVersion;
    return { kind: 'legacy', reason: 'initialize', ...(typeof v === 'string' ? { requestedVersion: v } : {}) };
  }
  if (claim.claims) {
    if (envelopeProblem) return envelopeError(envelopeProblem);
    if (header !== undefined && claim.version !== undefined && header !== claim.version)
      return mismatch(
        shownName(header),
        `the body envelope names protocol version ${shownName(claim.version)} but the MCP-Protocol-Version header names ${shownName(header)}`,
      );
    if (r.mcpMethodHeader !== undefined && r.mcpMethodHeader !== msg.method)
      return mismatch(
        shownName(r.mcpMethodHeader),
        `the body names method ${shownName(msg.method)} but the Mcp-Method header names ${shownName(r.mcpMethodHeader)}`,
      );
    return { kind: 'modern', messageKind: 'request', message: msg, ...(claim.version !== undefined ? { revision: claim.version } : {}) };
  }
  if (headerModern)
    return reject(
      ERR.invalidParams,
      `Invalid params: the MCP-Protocol-Version header names protocol revision ${header}, but the request is missing the per-request _meta envelope`,
    );
  return { kind: 'legacy', reason: 'no-claim', ...(header !== undefined ? { requestedVersion: header } : {}) };
};

const envelopeError = (p: { key: string; problem: string }): Classified =>
  reject(ERR.invalidParams, `Invalid _meta envelope for protocol revision ${MODERN_REVISION}: ${p.key}: ${p.problem}`, { envelope: p });

const classifyNotification = (r: Inbound, body: Record<string, unknown>): Classified => {
  const msg = body as unknown as Message;
  const header = r.protocolVersionHeader;
  const claim = claimOf(msg.params);
  const methodDiffers = r.mcpMethodHeader !== undefined && r.mcpMethodHeader !== msg.method;
  const methodMismatch = (): Classified =>
    mismatch(
      r.mcpMethodHeader ?? '',
      `the notification body names method ${msg.method} but the Mcp-Method header names ${r.mcpMethodHeader}`,
    );
  if (claim.claims) {
    if (claim.version === undefined) return envelopeError({ key: VERSION_KEY, problem: 'expected a protocol version string' });
    if (header !== undefined && header !== claim.version)
      return mismatch(
        shownName(header),
        `the notification envelope names protocol version ${claim.version} but the MCP-Protocol-Version header names ${header}`,
      );
    if (isModern(claim.version) && methodDiffers) return methodMismatch();
    // A claim naming an older revision is still a claim: the caller answers it as an unsupported version.
    return { kind: 'modern', messageKind: 'notification', message: msg, revision: claim.version };
  }
  if (header !== undefined && isModern(header)) {
    if (methodDiffers) return methodMismatch();
    return { kind: 'modern', messageKind: 'notification', message: msg, revision: header };
  }
  return { kind: 'legacy', reason: 'notification', ...(header !== undefined ? { requestedVersion: header } : {}) };
};
