/**
 * The 2026-07-28 request rules the front enforces before dispatch (pure): the revision must be
 * one we serve, the standard Mcp-Method / Mcp-Name headers must agree with the body, and methods
 * the revision removed answer 404 + -32601. Errors use the spec's codes and HTTP statuses.
 */
import { decodeHeaderValue, mismatch, type Rejection } from '../../link/param-headers.js';
import { targetOf } from '../../naming/anatomy.js';
import { MODERN_REVISION } from '../../upstream/conn.js';
import { ERR } from '../../rpc/jsonrpc.js';
import { shownName } from '../../log/escape.js';

export const MODERN_REVISIONS = [MODERN_REVISION];

/** Methods the stateless revision removed (or never had): 404 with -32601. */
export const REMOVED_IN_MODERN = new Set([
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
  'notifications/initialized',
]);

/** Methods of the tasks extension whose Mcp-Name mirrors params.taskId (SEP-2663, so requests for a task can be routed). */
const TASK_NAMED = new Set(['tasks/get', 'tasks/update', 'tasks/cancel']);

/** The name the Mcp-Name header must mirror: a tools/call or prompts/get name, a resources/read URI, a task's id. */
const nameSource = (method: string, params: Record<string, unknown>): string | undefined => {
  if (TASK_NAMED.has(method)) return typeof params.taskId === 'string' ? params.taskId : undefined;
  if (method !== 'tools/call' && method !== 'prompts/get' && method !== 'resources/read') return undefined;
  const t = targetOf(method, params);
  return t && typeof (t.kind === 'uri' ? params.uri : params.name) === 'string' ? t.value : undefined;
};

export const checkRevision = (revision: string | undefined): Rejection | undefined =>
  revision === undefined || MODERN_REVISIONS.includes(revision)
    ? undefined
    : {
        status: 400,
        code: ERR.unsupportedVersion,
        message: `Unsupported protocol version: ${revision}`,
        data: { supported: MODERN_REVISIONS, requested: revision },
      };

export const checkStandardHeaders = (
  method: string,
  params: Record<string, unknown>,
  headers: { method?: string; name?: string },
): Rejection | undefined => {
  if (headers.method === undefined)
    return mismatch('Mcp-Method', `the body names method ${shownName(method)} but the required Mcp-Method header is absent`);
  const bodyName = nameSource(method, params);
  if (bodyName === undefined) return undefined;
  if (headers.name === undefined)
    return mismatch('Mcp-Name', `the body carries "${shownName(bodyName)}" but the required Mcp-Name header is absent`);
  const decoded = decodeHeaderValue(headers.name);
  if (decoded === undefined) return mismatch('Mcp-Name', 'the Mcp-Name header carries an invalid Base64 sentinel value');
  if (decoded !== bodyName)
    return mismatch('Mcp-Name', `the body carries "${shownName(bodyName)}" but the Mcp-Name header names "${shownName(decoded)}"`);
  return undefined;
};
