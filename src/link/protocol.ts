/**
 * The front⇄host contract: every method name and `_meta` key that crosses the link, and the
 * shape of each message. Front and host import this module and never each other.
 */
import type { GuardReport } from './reports.js';

export type Params = Record<string, unknown>;

/** The _meta key naming the task a message belongs to (2025-11-25 tasks), read by front and host alike. */
export const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/** Method names on the link. */
export const LINK = {
  /** front → host requests */
  configure: 'lanegate/configure',
  measure: 'lanegate/measure',
  processes: 'lanegate/processes',
  /** A lane's handshake-era session ended: the host cancels the tasks it held (they can never be reached again). */
  sessionEnded: 'lanegate/session-ended',
  /**
   * A lane's request whose params the front did not touch: the lane's body as the text that
   * arrived, beside the caller block. A method of its own, so nothing a lane writes in its params
   * is ever read as link structure.
   */
  forward: 'lanegate/forward',
  /** host → front request: an upstream asks a lane's client (sampling, elicitation, roots). */
  clientRequest: 'lanegate/client-request',
  /** host → front notifications */
  guard: 'lanegate/guard',
  notify: 'lanegate/notify',
  laneEvent: 'lanegate/lane-event',
  escalated: 'lanegate/escalated',
  /** A running server's placement changed live (promoted, retreated) or a lane moved onto its shared child. */
  placed: 'lanegate/placed',
  hazard: 'lanegate/hazard',
  inventory: 'lanegate/inventory',
  upstream: 'lanegate/upstream',
  secret: 'lanegate/secret',
} as const;

/** `_meta` keys on the link. */
export const META = {
  /** On a forwarded request: the calling lane, era and holder. */
  caller: 'lanegate/caller',
  /** The experimental capability an upstream declares when it reads the caller's identity. */
  callerIdentity: 'lanegate/caller-identity',
  /** On a list_changed from a host: which server changed, for which lanes. */
  server: 'lanegate/server',
  lanes: 'lanegate/lanes',
  /** On a list answer: the servers that could not be listed, and why. */
  absent: 'lanegate/absent',
} as const;

/**
 * The one answer to a task id a lane cannot reach: unknown, expired, another lane's or session's,
 * or lost with the process that held it. Front and host give it alike, so none can be told apart.
 */
export const TASK_NOT_FOUND = 'Failed to retrieve task: Task not found (unknown, expired, or ended with the process that held it)';

/** Why a server is missing from a lane's listing: a code the front turns into a remedy. */
export type AbsenceCode = 'refused' | 'crashed' | 'start_failed' | 'collision' | 'drift' | 'unavailable';

export interface Absence {
  server: string;
  code: AbsenceCode;
  /** For people: the host's words, escaped before display. */
  reason: string;
  /** For `refused`: the item the guard refused. */
  item?: string;
}

export interface UpstreamEvent {
  server: string;
  lane?: string;
  kind: 'started' | 'start_failed' | 'stopped' | 'crashed';
  pid?: number;
  version?: string;
  detail?: string;
}

/** Host → front notifications and their params. */
export interface HostNotes {
  [LINK.guard]: GuardReport;
  [LINK.notify]: { lane: string; token?: string | number; method: string; params: Params };
  [LINK.laneEvent]: { lane: string; holders: string[]; method: string; params: Params };
  [LINK.escalated]: { server: string; lane: string; request: string; at: number };
  [LINK.placed]: { server: string; change: 'promoted' | 'joined' | 'retreated'; lane?: string; at: number };
  [LINK.hazard]: { server: string; code: string };
  [LINK.inventory]: { server: string; cleared?: boolean; drift?: Params; line?: string; withheld?: boolean };
  [LINK.upstream]: UpstreamEvent;
  /** A secret seen in a call (rule ids only, never a value). */
  [LINK.secret]: {
    server: string;
    lane: string;
    direction: 'arguments' | 'answers';
    action: 'blocked' | 'redacted' | 'logged';
    rules: string[];
  };
}

export type ListChanged =
  | 'notifications/tools/list_changed'
  | 'notifications/prompts/list_changed'
  | 'notifications/resources/list_changed';

/** What a host sends the front. */
export interface HostOut {
  notify<M extends keyof HostNotes>(method: M, params: HostNotes[M]): void;
  notify(method: ListChanged, params: { _meta: { [META.server]: string; [META.lanes]: string[] | 'all' } }): void;
  /** Asks the front (for a lane's client) and waits for the answer. */
  request: (
    method: typeof LINK.clientRequest,
    /**
     * `server`: the child's server (a client task is polled only by the server it was made for);
     * `holder`: the session a request about one of its tasks goes to (no other may answer it).
     */
    params: { lane: string; server?: string; holder?: string; method: string; params: Params },
    timeoutMs: number,
  ) => Promise<Params>;
}

/** The front's handlers, one per host notification, each given the host's key and typed params. */
export type HostNoteHandlers = { [M in keyof HostNotes]: (host: string, params: HostNotes[M]) => void };

const isNote = (m: string): m is keyof HostNotes => Object.values(LINK).includes(m as never) && m !== LINK.configure;

/** Routes one host notification to its handler; false when it is not a link notification. */
export const dispatchHostNote = (host: string, method: string, params: Params | undefined, handlers: HostNoteHandlers): boolean => {
  if (!isNote(method) || !(method in handlers)) return false;
  (handlers[method] as (h: string, p: Params) => void)(host, params ?? {});
  return true;
};
