/**
 * The shape a request's params must have before anything reads them: names and URIs are strings,
 * params and arguments are objects. A lane's malformed request is an invalid-params error (-32602),
 * never a thrown TypeError (an object whose toString is not a function once took the front down).
 * Pure.
 */
import { isObject } from '../../records/atomic.js';
import { progressTokenProblem } from './progress-token.js';

const LOG_LEVELS = new Set(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);

export { MAX_PROGRESS_TOKEN } from './progress-token.js';

/**
 * The longest URI a resource subscription may name (the guard's bound on a listed item's URI): a
 * subscription is held by the front and the host for as long as its holder lives, and 150 of
 * 3 MB each once grew both by ~450 MB (attack round 12).
 */
export const MAX_SUBSCRIBED_URI_CHARS = 2048;

/** At most this many resource subscriptions per holder: a session's, or the URIs in one listen stream's `resourceSubscriptions`. */
export const MAX_RESOURCE_SUBSCRIPTIONS = 100;

/** At most this many resource subscriptions held by one lane's handshake-era sessions together (each update is fanned out to its holders). */
export const MAX_LANE_RESOURCE_SUBSCRIPTIONS = 1000;

/** The lane's `_meta`, checked before a call stream takes its progress token (dispatch sees a minted one). */
export const metaProblem = (meta: unknown): string | undefined => {
  if (meta === undefined) return undefined;
  if (!isObject(meta)) return 'params._meta must be an object';
  return progressTokenProblem(meta.progressToken);
};

export const paramsProblem = (method: string, params: unknown): string | undefined => {
  if (params !== undefined && !isObject(params)) return 'params must be an object';
  const p = params ?? {};
  const meta = metaProblem(p._meta);
  if (meta) return meta;
  const str = (key: string): string | undefined => (typeof p[key] === 'string' ? undefined : `params.${key} must be a string`);
  switch (method) {
    case 'tools/call':
      return str('name') ?? (p.arguments !== undefined && !isObject(p.arguments) ? 'params.arguments must be an object' : undefined);
    case 'prompts/get':
      return str('name') ?? (p.arguments !== undefined && !isObject(p.arguments) ? 'params.arguments must be an object' : undefined);
    case 'resources/read':
    case 'resources/unsubscribe':
      return str('uri');
    case 'resources/subscribe':
      return (
        str('uri') ??
        ((p.uri as string).length > MAX_SUBSCRIBED_URI_CHARS
          ? `params.uri is longer than ${MAX_SUBSCRIBED_URI_CHARS} characters, the longest a resource subscription may name`
          : undefined)
      );
    case 'completion/complete': {
      const ref = p.ref;
      if (!isObject(ref)) return 'params.ref must be an object';
      if (ref.type === 'ref/prompt') return typeof ref.name === 'string' ? undefined : 'params.ref.name must be a string';
      if (ref.type === 'ref/resource') return typeof ref.uri === 'string' ? undefined : 'params.ref.uri must be a string';
      return 'params.ref.type must be ref/prompt or ref/resource';
    }
    case 'tasks/get':
    case 'tasks/result':
    case 'tasks/cancel':
      return str('taskId');
    case 'tasks/update':
      return str('taskId') ?? (isObject(p.inputResponses) ? undefined : 'params.inputResponses must be an object');
    case 'tasks/list':
      return p.cursor !== undefined && typeof p.cursor !== 'string' ? 'params.cursor must be a string' : undefined;
    case 'logging/setLevel':
      return typeof p.level === 'string' && LOG_LEVELS.has(p.level)
        ? undefined
        : 'params.level must be a logging level (debug … emergency)';
    default:
      return undefined;
  }
};

/** A value as text only if it is text (never calls a lane-supplied toString). Pure. */
export const text = (v: unknown): string => (typeof v === 'string' ? v : '');
