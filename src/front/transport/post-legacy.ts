import { ERR, type RpcRequest } from '../../rpc/jsonrpc.js';
import { FRONT_CAPABILITIES } from '../mcp/dispatch.js';
import { TASK_CAPABILITY } from '../mcp/tasks.js';
import { answer, cancelFrom, legacyRender } from './answer.js';
import { accepts } from './body.js';
import type { LegacyReason } from './classify.js';
import type { Replied } from './exchange.js';
import { legacyVersionProblem, negotiate, SESSION_HEADER } from './legacy-version.js';
import { type Post, rpcError } from './post-context.js';
import { takeTurns } from './call-turns.js';
import { callContextOf } from './call-context-of.js';

/** initialize opens a session (never inside one: the SDK's server answers that with an error too). */
const initialize = (p: Post, msg: RpcRequest, sid: string | undefined): Replied => {
  const { c, d, lane, claims, id } = p;
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
};

/**
 * A handshake-era POST: the client must take both answers the transport may give (as the SDK
 * requires); initialize opens a session; everything else belongs to a session of this lane, its
 * notifications and responses taken, its requests dispatched in their fair turn.
 */
export const postLegacy = async (p: Post, reason: LegacyReason): Promise<Replied> => {
  const { c, d, lane, body, id } = p;
  if (!accepts(c.req.header('accept'), 'text/event-stream'))
    return rpcError(c, 406, ERR.invalidRequest, 'Not Acceptable: Accept must include application/json and text/event-stream', id);
  if (Array.isArray(body)) return rpcError(c, 400, ERR.invalidRequest, 'JSON-RPC batches are not supported');
  const msg = body as RpcRequest;
  const sid = c.req.header(SESSION_HEADER);
  if (reason === 'initialize') return initialize(p, msg, sid);
  if (!sid) return rpcError(c, 400, ERR.invalidRequest, 'Bad Request: Mcp-Session-Id header is required', id);
  const versionProblem = legacyVersionProblem(c);
  if (versionProblem) return rpcError(c, 400, ERR.invalidRequest, versionProblem, id);
  const session = d.sessions.get(sid, lane);
  if (!session) return rpcError(c, 404, ERR.invalidRequest, 'Session not found', id);
  if (reason === 'notification') cancelFrom(d, lane, sid, body as { method: string; params?: Record<string, unknown> });
  if (reason === 'response') d.calls.clientRequests.answer(lane, sid, body as { id?: unknown });
  if (reason === 'notification' || reason === 'response') return c.body(null, 202);
  const x = callContextOf(p, msg, sid);
  const render = legacyRender(msg.id);
  const full = await takeTurns(c, d, x, render);
  if (full) return full;
  if (msg.params?.task !== undefined) session.tasked = true;
  return answer(c, d, x, msg, render);
};
