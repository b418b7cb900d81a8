import { ERR, type RpcRequest } from '../../rpc/jsonrpc.js';
import { MODERN_REVISION } from '../../upstream/conn.js';
import { FRONT_CAPABILITIES } from '../mcp/dispatch.js';
import { TASKS_EXTENSION } from '../mcp/tasks.js';
import { answer, cancelFrom } from './answer.js';
import type { Classified } from './classify.js';
import type { Replied } from './exchange.js';
import { rpcErrorData } from './http-deps.js';
import { listen } from './listen.js';
import { checkRevision, checkStandardHeaders, REMOVED_IN_MODERN } from './modern-checks.js';
import { modernResult } from './modern-result.js';
import type { Post } from './post-context.js';
import { hold } from './request-gate.js';
import { takeTurns } from './call-turns.js';
import type { Dispatched } from '../mcp/dispatch-types.js';
import { callContextOf } from './call-context-of.js';

type Modern = Extract<Classified, { kind: 'modern' }>;

/** HTTP statuses the 2026-07-28 transport gives some JSON-RPC errors (an upstream's included). */
export const modernErrorStatus = (code: number, status: number): number =>
  code === ERR.methodNotFound
    ? 404
    : code === ERR.headerMismatch || code === ERR.missingCapability || code === ERR.unsupportedVersion
      ? 400
      : status;

/** server/discover: answered by the front itself. */
const discover = (p: Post, req: RpcRequest): Replied =>
  p.c.json({
    jsonrpc: '2.0',
    id: req.id,
    result: modernResult(
      req.method,
      {
        supportedVersions: [MODERN_REVISION],
        capabilities: { ...FRONT_CAPABILITIES, extensions: TASKS_EXTENSION },
        serverInfo: p.d.serverInfo,
        instructions: p.d.instructions,
      },
      p.d.serverInfo,
    ),
  });

/**
 * A 2026-07-28 POST: the revision and the standard headers checked, a notification taken (a
 * cancellation), subscriptions/listen opened as a stream, server/discover answered here, and
 * every other request dispatched in its fair turn, its result in the revision's shape.
 */
export const postModern = async (p: Post, outcome: Modern): Promise<Replied> => {
  const { c, d, lane, claims, id } = p;
  const bad = checkRevision(c.req.header('mcp-protocol-version') ?? outcome.revision);
  if (bad) return rpcErrorData(c, bad, id);
  if (outcome.messageKind === 'notification') {
    cancelFrom(d, lane, undefined, outcome.message as unknown as { method: string; params?: Record<string, unknown> });
    return c.body(null, 202);
  }
  const req = outcome.message as unknown as RpcRequest;
  if (req.method === 'subscriptions/listen') return hold(c, d, lane, 'streams') ?? listen(c, d, lane, req, d.serverInfo, claims);
  if (REMOVED_IN_MODERN.has(req.method))
    return rpcErrorData(
      c,
      { status: 404, code: ERR.methodNotFound, message: `Method not found: ${req.method} is not part of revision ${MODERN_REVISION}` },
      req.id,
    );
  const headerProblem = checkStandardHeaders(req.method, req.params ?? {}, {
    method: c.req.header('mcp-method'),
    name: c.req.header('mcp-name'),
  });
  if (headerProblem) return rpcErrorData(c, headerProblem, req.id);
  if (req.method === 'server/discover') return discover(p, req);
  const serverInfo = d.serverInfo;
  const render = (r: Dispatched): { status: number; body: Record<string, unknown> } =>
    r.error
      ? { status: modernErrorStatus(r.error.code, r.status), body: { jsonrpc: '2.0', id: req.id, error: r.error } }
      : { status: r.status, body: { jsonrpc: '2.0', id: req.id, result: modernResult(req.method, r.result ?? {}, serverInfo) } };
  const x = callContextOf(p, req, undefined);
  const full = await takeTurns(c, d, x, render);
  if (full) return full;
  return answer(c, d, x, req, render);
};
