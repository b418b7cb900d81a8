/**
 * Evidence scope: what a demonstration proved something about, as (method, name) pairs written
 * `tools/call echo`, `prompts/get greet`, `resources/read file:///a`. A shared child executes only
 * requests inside the scope of its server's demonstration; everything else moves the calling lane
 * to a dedicated child first. Pure.
 */
export type ScopedMethod = 'tools/call' | 'prompts/get' | 'resources/read';
export const SCOPED_METHODS: readonly ScopedMethod[] = ['tools/call', 'prompts/get', 'resources/read'];

/** One scope entry, as recorded and shown: `<method> <name or uri>`. */
export const scopeKey = (method: ScopedMethod, name: string): string => `${method} ${name}`;

/** Splits a scope entry back into its method and name (undefined for anything malformed). */
export const parseScopeKey = (key: string): { method: ScopedMethod; name: string } | undefined => {
  const sp = key.indexOf(' ');
  if (sp < 0) return undefined;
  const method = key.slice(0, sp) as ScopedMethod;
  const name = key.slice(sp + 1);
  return SCOPED_METHODS.includes(method) && name.length > 0 ? { method, name } : undefined;
};

/** Methods that never execute a lane's state-bearing work: listings and liveness. */
const ALWAYS_INSIDE = new Set(['ping', 'tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']);

export type ScopeVerdict = { inside: true } | { inside: false; request: string };

type Params = Record<string, unknown> | undefined;

const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

/**
 * Whether a request (method and UNPREFIXED params, as the upstream will see them) is inside a
 * demonstrated scope. Listings and ping are inside; a completion is inside when the prompt or
 * resource it completes is; a resource subscription when a read of that URI is. Anything else,
 * including every method this function does not know, is outside: an unknown is never safe.
 */
export const inScope = (scope: ReadonlySet<string>, method: string, params: Params): ScopeVerdict => {
  if (ALWAYS_INSIDE.has(method)) return { inside: true };
  const p = params ?? {};
  // A task-augmented request keeps task state in the server: no demonstration covered that.
  if (p.task !== undefined) return { inside: false, request: `${method} ${str(p.name ?? p.uri)} (as a task)`.replace('  ', ' ') };
  let key: string;
  switch (method) {
    case 'tools/call':
      key = scopeKey('tools/call', str(p.name));
      break;
    case 'prompts/get':
      key = scopeKey('prompts/get', str(p.name));
      break;
    case 'resources/read':
    case 'resources/subscribe':
    case 'resources/unsubscribe':
      key = scopeKey('resources/read', str(p.uri));
      break;
    case 'completion/complete': {
      const ref = (p.ref ?? {}) as { type?: unknown; name?: unknown; uri?: unknown };
      key =
        ref.type === 'ref/prompt'
          ? scopeKey('prompts/get', str(ref.name))
          : ref.type === 'ref/resource'
            ? scopeKey('resources/read', str(ref.uri))
            : `completion/complete ${str(ref.type)}`;
      break;
    }
    default:
      return { inside: false, request: method };
  }
  // A resource subscription or a completion is reported as the request the lane actually made.
  const request =
    method === 'resources/read' || method === 'tools/call' || method === 'prompts/get'
      ? key
      : `${method} ${key.slice(key.indexOf(' ') + 1)}`;
  return scope.has(key) ? { inside: true } : { inside: false, request };
};
