import { type Exchange, Replied } from './exchange.js';
import { streamSse } from './sse-stream.js';
import { pumpQueue, pumpSse } from './sse-pump.js';
import { isLanegateError } from '../../errors.js';
import { ERR, type RpcRequest } from '../../rpc/jsonrpc.js';
import { FRONT_CAPABILITIES } from '../mcp/dispatch.js';
import { TASK_CAPABILITY, TASKS_EXTENSION } from '../mcp/tasks.js';
import { checkRevision, checkStandardHeaders, REMOVED_IN_MODERN } from './modern-checks.js';
import { type McpHttpDeps, rpcErrorData } from './http-deps.js';
import { answer, cancelFrom, legacyRender } from './answer.js';
import { listen } from './listen.js';
import type { LaneClaims } from '../../auth/tokens.js';
import { accepts } from './body.js';
import { boundedBody, hold, paceFor, takeByteTurn, takeTurn } from './request-gate.js';
import { classifyInbound } from './classify.js';
import { MODERN_REVISION } from '../../upstream/conn.js';
import { modernResult } from './modern-result.js';
import { exactIdStandIn } from './big-ids.js';

/** The handshake-era revisions a legacy session may negotiate, newest first. */
export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];

export type { McpHttpDeps } from './http-deps.js';

const MODERN_VERSION = MODERN_REVISION;
const SESSION_HEADER = 'mcp-session-id';

const rpcError = (
  c: Exchange,
  status: number,
  code: number,
  message: string,
  id: unknown = null,
  headers: Record<string, string> = {},
): Replied => rpcErrorData(c, { status, code, message }, id, headers);

const negotiate = (requested: unknown): string =>
  typeof requested === 'string' && LEGACY_VERSIONS.includes(requested) ? requested : (LEGACY_VERSIONS[0] as string);

/**
 * A handshake-era request after initialize names its revision in MCP-Protocol-Version; one this
 * gateway does not speak is a 400 (an absent header means the oldest, as the revision says).
 */
const legacyVersionProblem = (c: Exchange): string | undefined => {
  const v = c.req.header('mcp-protocol-version');
  return v === undefined || LEGACY_VERSIONS.includes(v)
    ? undefined
    : `Bad Request: unsupported MCP-Protocol-Version (supported: ${LEGACY_VERSIONS.join(', ')})`;
};

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

/** HTTP statuses the 2026-07-28 transport gives some JSON-RPC errors (an upstream's included). */
const modernErrorStatus = (code: number, status: number): number =>
  code === ERR.methodNotFound
    ? 404
    : code === ERR.headerMismatch || code === ERR.missingCapability || code === ERR.unsupportedVersion
      ? 400
      : status;

export const handlePost = async (c: Exchange, d: McpHttpDeps): Promise<Replied> => {
  const who = await authenticate(c, d);
  if (who instanceof Replied) return who;
  const { lane, claims } = who;
  c.pace = paceFor(d, lane);
  const busy = hold(c, d, lane, 'requests') ?? (await takeByteTurn(c, d, lane));
  if (busy) return busy;
  const text = await boundedBody(c, d);
  if (text instanceof Replied) return text;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return rpcError(c, 400, ERR.parse, 'Parse error: body is not JSON');
  }
  // An integer id beyond 2^53 is served under a stand-in and written back exactly (big-ids.ts).
  const standIn = exactIdStandIn(body, text);
  if (standIn !== undefined) {
    (body as { id: unknown }).id = standIn;
    c.exactIds = true;
  }
  const outcome = classifyInbound({
    body,
    protocolVersionHeader: c.req.header('mcp-protocol-version'),
    mcpMethodHeader: c.req.header('mcp-method'),
  });
  const id = (body as { id?: unknown } | null)?.id ?? null;
  if (outcome.kind === 'reject') return rpcError(c, outcome.httpStatus, outcome.code, outcome.message, id);

  if (outcome.kind === 'modern') {
    const bad = checkRevision(c.req.header('mcp-protocol-version') ?? outcome.revision);
    if (bad) return rpcErrorData(c, bad, id);
    if (outcome.messageKind === 'notification') {
      cancelFrom(d, lane, undefined, outcome.message as unknown as { method: string; params?: Record<string, unknown> });
      return c.body(null, 202);
    }
    const req = outcome.message as unknown as RpcRequest;
    const serverInfo = d.serverInfo;
    if (req.method === 'subscriptions/listen') return hold(c, d, lane, 'streams') ?? listen(c, d, lane, req, serverInfo, claims);
    if (REMOVED_IN_MODERN.has(req.method))
      return rpcErrorData(
        c,
        { status: 404, code: ERR.methodNotFound, message: `Method not found: ${req.method} is not part of revision ${MODERN_VERSION}` },
        req.id,
      );
    const headerProblem = checkStandardHeaders(req.method, req.params ?? {}, {
      method: c.req.header('mcp-method'),
      name: c.req.header('mcp-name'),
    });
    if (headerProblem) return rpcErrorData(c, headerProblem, req.id);
    if (req.method === 'server/discover') {
      return c.json({
        jsonrpc: '2.0',
        id: req.id,
        result: modernResult(
          req.method,
          {
            supportedVersions: [MODERN_VERSION],
            capabilities: { ...FRONT_CAPABILITIES, extensions: TASKS_EXTENSION },
            serverInfo,
            instructions: d.instructions,
          },
          serverInfo,
        ),
      });
    }
    const full = await takeTurn(c, d, lane);
    if (full) return full;
    return answer(
      c,
      { ...d, tokenId: claims.jti },
      lane,
      req,
      undefined,
      (r) =>
        r.error
          ? { status: modernErrorStatus(r.error.code, r.status), body: { jsonrpc: '2.0', id: req.id, error: r.error } }
          : { status: r.status, body: { jsonrpc: '2.0', id: req.id, result: modernResult(req.method, r.result ?? {}, serverInfo) } },
      text,
    );
  }

  // Handshake era: the client must take both answers the transport may give (as the SDK requires).
  if (!accepts(c.req.header('accept'), 'text/event-stream'))
    return rpcError(c, 406, ERR.invalidRequest, 'Not Acceptable: Accept must include application/json and text/event-stream', id);
  if (Array.isArray(body)) return rpcError(c, 400, ERR.invalidRequest, 'JSON-RPC batches are not supported');
  const msg = body as RpcRequest;
  const sid = c.req.header(SESSION_HEADER);
  if (outcome.reason === 'initialize') {
    // As the SDK's server answers it: an initialize inside a session is a client error, not a
    // second session opened behind the client's back.
    if (sid)
      return rpcError(
        c,
        400,
        ERR.invalidRequest,
        'Invalid Request: this session is already initialized; send initialize without Mcp-Session-Id to open a new one',
        id,
      );
    const params = msg.params ?? {};
    const version = negotiate(params.protocolVersion);
    const caps = params.capabilities;
    const session = d.sessions.create(
      lane,
      version,
      claims,
      typeof caps === 'object' && caps !== null ? (caps as Record<string, unknown>) : undefined,
    );
    return c.json(
      {
        jsonrpc: '2.0',
        id: msg.id,
        result: {
          protocolVersion: version,
          // Tasks (2025-11-25) are served to handshake-era lanes of that revision.
          capabilities: version >= '2025-11-25' ? { ...FRONT_CAPABILITIES, tasks: TASK_CAPABILITY } : FRONT_CAPABILITIES,
          serverInfo: d.serverInfo,
          instructions: d.instructions,
        },
      },
      200,
      { 'Mcp-Session-Id': session.id },
    );
  }
  if (!sid) return rpcError(c, 400, ERR.invalidRequest, 'Bad Request: Mcp-Session-Id header is required', id);
  const versionProblem = legacyVersionProblem(c);
  if (versionProblem) return rpcError(c, 400, ERR.invalidRequest, versionProblem, id);
  const session = d.sessions.get(sid, lane);
  if (!session) return rpcError(c, 404, ERR.invalidRequest, 'Session not found', id);
  if (outcome.reason === 'notification') cancelFrom(d, lane, sid, body as { method: string; params?: Record<string, unknown> });
  if (outcome.reason === 'response') d.clientRequests.answer(lane, sid, body as { id?: unknown });
  if (outcome.reason === 'notification' || outcome.reason === 'response') return c.body(null, 202);
  const full = await takeTurn(c, d, lane);
  if (full) return full;
  return answer(c, { ...d, tokenId: claims.jti }, lane, msg, sid, legacyRender(msg.id), text);
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
