import { LARGE_TURN_CHARS, turn } from '../../rpc/turn.js';
import { pacedParse } from '../../rpc/paced-json.js';
import { fillPlaceholders } from '../../rpc/placeholders.js';
import { type Exchange, Replied } from './exchange.js';
import { streamSse } from './sse-stream.js';
import { pumpQueue, pumpSse } from './sse-pump.js';
import { isLanegateError } from '../../errors.js';
import { ERR } from '../../rpc/jsonrpc.js';
import type { McpHttpDeps } from './http-deps.js';
import type { LaneClaims } from '../../auth/tokens.js';
import { accepts } from './body.js';
import { boundedBody, hold, paceFor, takeByteTurn } from './request-gate.js';
import { classifyInbound } from './classify.js';
import { exactIdStandIn, exactProgressTokenStandIn, exactRequestIdStandIn } from './big-ids.js';
import { type Post, rpcError } from './post-context.js';
import { postModern } from './post-modern.js';
import { postLegacy } from './post-legacy.js';
import { legacyVersionProblem, SESSION_HEADER } from './legacy-version.js';

export { LEGACY_VERSIONS } from './legacy-version.js';

export type { McpHttpDeps } from './http-deps.js';

/** Authenticates; returns the lane and its claims, or an error response. Nothing unauthenticated goes further. */
const authenticate = async (c: Exchange, d: McpHttpDeps): Promise<{ lane: string; claims: LaneClaims } | Replied> => {
  try {
    return await d.auth.authenticate(c.req.header('authorization'));
  } catch (e) {
    const code = isLanegateError(e) ? e.code : 'auth_invalid';
    d.onRefused(code);
    const challenge =
      code === 'auth_missing'
        ? `Bearer realm="${d.realm}"`
        : `Bearer realm="${d.realm}", error="invalid_token", error_description="${isLanegateError(e) ? e.detail.replace(/"/g, "'") : 'invalid token'}"`;
    return rpcError(c, 401, ERR.invalidRequest, 'Unauthorized: a valid lane token is required', null, { 'WWW-Authenticate': challenge });
  }
};

/**
 * A POST on /mcp: authenticated, held against the lane's limits (requests, bytes), its body read
 * bounded and parsed once, classified by era, then handled by that era's handler.
 */
export const handlePost = async (c: Exchange, d: McpHttpDeps): Promise<Replied> => {
  const who = await authenticate(c, d);
  if (who instanceof Replied) return who;
  const { lane, claims } = who;
  c.pace = paceFor(d, lane);
  const busy = hold(c, d, lane, 'requests') ?? (await takeByteTurn(c, d, lane));
  if (busy) return busy;
  const json = await boundedBody(c, d);
  if (json instanceof Replied) return json;
  const { text, sent, opened } = json;
  // A large body is parsed in steps (its long values a window at a time, paced-json.ts): other
  // lanes' messages are handled between them. One opened on its bytes is parsed as its skeleton
  // (it has no long value left), its long values filled in as they are read (large-body.ts).
  const large = text.length >= LARGE_TURN_CHARS;
  let body: unknown;
  try {
    body = large && !opened ? await pacedParse(text, turn, { minChars: LARGE_TURN_CHARS }) : JSON.parse(text);
  } catch {
    return rpcError(c, 400, ERR.parse, 'Parse error: body is not JSON');
  }
  if (opened) body = fillPlaceholders(body, opened.valueOf, true);
  if (large || opened) await turn();
  // An integer id beyond 2^53 is served under a stand-in and written back exactly (big-ids.ts).
  const standIn = exactIdStandIn(body, text);
  if (standIn !== undefined) {
    (body as { id: unknown }).id = standIn;
    c.exactIds = true;
  }
  // A cancel names such a call by its stand-in too.
  const cancelled = exactRequestIdStandIn(body, text);
  if (cancelled !== undefined) (body as { params: { requestId: unknown } }).params.requestId = cancelled;
  // So does a progress token beyond 2^53: its notifications go back with the lane's exact digits.
  const token = exactProgressTokenStandIn(body, text);
  if (token !== undefined) {
    (body as { params: { _meta: { progressToken: unknown } } }).params._meta.progressToken = token;
    c.exactIds = true;
  }
  const outcome = classifyInbound({
    body,
    protocolVersionHeader: c.req.header('mcp-protocol-version'),
    mcpMethodHeader: c.req.header('mcp-method'),
  });
  const id = (body as { id?: unknown } | null)?.id ?? null;
  if (outcome.kind === 'reject') return rpcError(c, outcome.httpStatus, outcome.code, outcome.message, id);

  const p: Post = { c, d, lane, claims, body, sent, id };
  return outcome.kind === 'modern' ? postModern(p, outcome) : postLegacy(p, outcome.reason);
};

export const handleGet = async (c: Exchange, d: McpHttpDeps): Promise<Replied> => {
  const who = await authenticate(c, d);
  if (who instanceof Replied) return who;
  const { lane } = who;
  c.pace = paceFor(d, lane);
  const sid = c.req.header(SESSION_HEADER);
  if (!sid) return rpcError(c, 405, ERR.methodNotAllowed, 'Method not allowed: GET needs a legacy session', null, { Allow: 'POST' });
  if (!accepts(c.req.header('accept'), 'text/event-stream'))
    return rpcError(c, 406, ERR.invalidRequest, 'Not Acceptable: Accept must include text/event-stream');
  const versionProblem = legacyVersionProblem(c);
  if (versionProblem) return rpcError(c, 400, ERR.invalidRequest, versionProblem);
  const session = d.sessions.get(sid, lane);
  if (!session) return rpcError(c, 404, ERR.invalidRequest, 'Session not found');
  // One standalone GET stream per session (as the SDK allows); the second is a conflict.
  if (session.streams.size > 0) return rpcError(c, 409, ERR.invalidRequest, 'Conflict: this session already has a GET stream open');
  const busy = hold(c, d, lane, 'requests') ?? hold(c, d, lane, 'streams');
  if (busy) return busy;
  return streamSse(c, async (stream) => {
    const q = pumpQueue();
    const sink = { send: q.push, close: q.close };
    session.streams.add(sink);
    stream.onAbort(() => sink.close());
    try {
      await pumpSse(stream, q.source);
    } finally {
      session.streams.delete(sink);
    }
  });
};

export const handleDelete = async (c: Exchange, d: McpHttpDeps): Promise<Replied> => {
  const who = await authenticate(c, d);
  if (who instanceof Replied) return who;
  const { lane } = who;
  const sid = c.req.header(SESSION_HEADER);
  if (!sid) return rpcError(c, 405, ERR.methodNotAllowed, 'Method not allowed: DELETE needs a legacy session', null, { Allow: 'POST' });
  if (!d.sessions.get(sid, lane)) return rpcError(c, 404, ERR.invalidRequest, 'Session not found');
  d.sessions.end(sid);
  return c.body(null, 200);
};
