import type { RpcNotification, RpcRequest } from '../rpc/jsonrpc.js';
import type { ServerConfig } from '../policy/model.js';
import type { Surface } from '../guard/scanner.js';
import type { Era, UpstreamConn } from '../upstream/conn.js';
import type { UpstreamEvent } from '../link/protocol.js';
import type { FailureKind } from '../errors.js';

/** Who a child serves, as seen when one of its frames arrives. */
export interface ChildScope {
  /** The lanes it serves: one for a dedicated child, every lane of the server if shared. */
  lanes: string[] | 'all';
  /** The one lane that has used a shared child so far, if exactly one. */
  sole?: string;
  /** More than one lane has used this shared child: a misrouted frame would cross lanes. */
  contested: boolean;
  /** The era its link speaks. */
  era: Era;
  /** The child's key within its server (lane or shared, and era). */
  key: string;
}

export interface SlotHooks {
  connect: (
    server: ServerConfig,
    lane: string | undefined,
    hooks: {
      onNotification: (n: RpcNotification) => void;
      onServerRequest: (r: RpcRequest) => Promise<Record<string, unknown>>;
      onExit: (detail: string) => void;
    },
    era: Era,
    /** `upstreamEra: auto`: if the upstream refuses `era`, speak the other one. */
    fallback: boolean,
  ) => Promise<UpstreamConn>;
  onNotification: (server: string, scope: ChildScope, n: RpcNotification) => void;
  onServerRequest: (server: string, scope: ChildScope, r: RpcRequest) => Promise<Record<string, unknown>>;
  /** A child (re)connected: state it held upstream (resource subscriptions) is renewed here. */
  onConnected?: (server: string, key: string, conn: UpstreamConn) => void;
  /** A child's link ended (crashed or stopped): what it held (tasks) is gone with it. */
  onGone?: (server: string, conn: UpstreamConn, detail: string) => void;
  /** Whether something holds this child open (a subscription, a task): it is then never stopped as idle. */
  held?: (server: string, key: string) => boolean;
  onEvent: (event: {
    server: string;
    lane?: string;
    kind: 'started' | 'crashed' | 'stopped' | 'start_failed';
    pid?: number;
    detail?: string;
    /** The version the started child reports (the front notes it for the verdict cache). */
    version?: string;
  }) => void;
}

export interface Instance {
  key: string;
  lane: string | undefined;
  era: Era;
  /** Lanes that have used it (only counted for a shared child). */
  attached: Set<string>;
  conn?: UpstreamConn;
  starting?: Promise<UpstreamConn>;
  crashes: number;
  retryAt: number;
  lastError?: string;
  /** Whether the last failure was a crash or a failed start (data, for the absence a lane is told). */
  lastKind?: FailureKind;
  startedAt: number;
  idleTimer?: NodeJS.Timeout;
  restartTimer?: NodeJS.Timeout;
  stopping: boolean;
  /** Requests sent to the child that have not settled: while any runs, the child is not idle. */
  calls: number;
  /** A ping is out to it after one of its calls timed out (stuck-child check, slot.ts). */
  pinging?: boolean;
  /** Why it was killed (it stopped answering): what its crash is reported as. */
  killedFor?: string;
  /** The instance's vetted surface (fetched once, re-fetched after list_changed or a restart). */
  surface?: Promise<Surface>;
}

/** Who a child serves, from its instance (pure). */
export const scopeOf = (inst: Instance, shared: boolean): ChildScope => {
  const key = inst.key;
  if (inst.lane !== undefined) return { lanes: [inst.lane], sole: inst.lane, contested: false, era: inst.era, key };
  const sole = inst.attached.size === 1 ? [...inst.attached][0] : undefined;
  return { lanes: 'all', ...(sole !== undefined ? { sole } : {}), contested: shared && inst.attached.size > 1, era: inst.era, key };
};

/** The event a started child is reported with (pure). */
export const startedEvent = (server: string, lane: string | undefined, conn: UpstreamConn): UpstreamEvent => {
  const version = conn.init.serverInfo.version;
  return {
    server,
    ...(lane ? { lane } : {}),
    kind: 'started',
    ...(conn.pid ? { pid: conn.pid } : {}),
    ...(typeof version === 'string' ? { version } : {}),
  };
};
