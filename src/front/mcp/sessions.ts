import { randomUUID } from 'node:crypto';
import type { LaneClaims } from '../../auth/tokens.js';

export interface StreamSink {
  send: (msg: Record<string, unknown>) => void;
  close: () => void;
}

export interface Session {
  id: string;
  lane: string;
  protocolVersion: string;
  createdAt: number;
  lastSeen: number;
  streams: Set<StreamSink>;
  /** Resource URIs (as the lane names them) this session subscribed to. */
  resources: Set<string>;
  /** The token it was opened with: revoking it (or the lane) ends the session and its stream. */
  claims: LaneClaims;
  /** A request of it asked for a task: its hosts are told when it ends (they cancel the tasks it holds). */
  tasked?: boolean;
  /** What its client declared at initialize (client-side tasks are asked of it only if declared). */
  capabilities?: Record<string, unknown>;
}

export const IDLE_MS = 60 * 60 * 1000;

/**
 * Legacy-era (handshake) sessions. A session is bound to the lane that opened it: a request
 * carrying its id with another lane's token is answered exactly like an unknown id.
 */
/** What a 2026-07-28 `subscriptions/listen` stream asked for (and was granted). */
export interface ListenFilter {
  toolsListChanged?: true;
  promptsListChanged?: true;
  resourcesListChanged?: true;
  /** Resource URIs (as the lane names them) whose updates this stream carries. */
  resourceSubscriptions?: string[];
}

const LISTEN_METHODS: Record<string, keyof ListenFilter> = {
  'notifications/tools/list_changed': 'toolsListChanged',
  'notifications/prompts/list_changed': 'promptsListChanged',
  'notifications/resources/list_changed': 'resourcesListChanged',
};

/** Idle past the limit with no GET stream open: a client listening on its stream is not idle. */
const expired = (s: Session, now: number): boolean => s.streams.size === 0 && now - s.lastSeen > IDLE_MS;

export class Sessions {
  private readonly byId = new Map<string, Session>();
  private readonly listeners = new Set<{
    lane: string;
    holder: string;
    filter: ListenFilter;
    send: (m: Record<string, unknown>) => void;
    claims: LaneClaims;
    close: () => void;
  }>();
  /** `maxPerLane`: sessions per lane before the least recently used one ends (gateway.limits.sessionsPerLane, read live). */
  constructor(private readonly maxPerLane: () => number = () => 256) {}
  /** Called when a session ends (its resource subscriptions are released upstream). */
  onEnd: (s: Session) => void = () => undefined;

  /** A modern lane's subscriptions/listen stream: list changes of ITS catalog only, per its filter. */
  listen(
    lane: string,
    holder: string,
    filter: ListenFilter,
    send: (m: Record<string, unknown>) => void,
    opened: { claims: LaneClaims; close: () => void },
  ): () => void {
    const l = { lane, holder, filter, send, ...opened };
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  create(lane: string, protocolVersion: string, claims: LaneClaims, capabilities?: Record<string, unknown>): Session {
    const mine = [...this.byId.values()].filter((s) => s.lane === lane).sort((a, b) => a.lastSeen - b.lastSeen);
    while (mine.length >= this.maxPerLane()) {
      const oldest = mine.shift();
      if (oldest) this.end(oldest.id);
    }
    const now = Date.now();
    const s: Session = {
      id: randomUUID(),
      lane,
      protocolVersion,
      createdAt: now,
      lastSeen: now,
      streams: new Set(),
      resources: new Set(),
      claims,
      ...(capabilities ? { capabilities } : {}),
    };
    this.byId.set(s.id, s);
    return s;
  }

  /** The session if it exists AND belongs to this lane; undefined otherwise, indistinguishably. */
  get(id: string, lane: string): Session | undefined {
    const s = this.byId.get(id);
    if (!s || s.lane !== lane) return undefined;
    if (expired(s, Date.now())) {
      this.end(id);
      return undefined;
    }
    s.lastSeen = Date.now();
    return s;
  }

  /** Whether the lane's session `id` declared client capability `name` at its initialize (read only: it touches nothing). */
  declares(id: string, lane: string, name: string): boolean {
    const s = this.byId.get(id);
    return s?.lane === lane && s.capabilities?.[name] !== undefined;
  }

  end(id: string): boolean {
    const s = this.byId.get(id);
    if (!s) return false;
    for (const st of s.streams) st.close();
    this.byId.delete(id);
    this.onEnd(s);
    return true;
  }

  /** Resource subscriptions held (or being made) by each lane's listen streams together. */
  private readonly listenHeld = new Map<string, number>();

  /** Counts `n` subscriptions of a listen stream of the lane (negative: let go). */
  holdListen(lane: string, n: number): void {
    const left = (this.listenHeld.get(lane) ?? 0) + n;
    if (left > 0) this.listenHeld.set(lane, left);
    else this.listenHeld.delete(lane);
  }

  /** The resource subscriptions a lane holds: its sessions' and its listen streams' together. */
  laneResources(lane: string): number {
    let all = this.listenHeld.get(lane) ?? 0;
    for (const x of this.byId.values()) if (x.lane === lane) all += x.resources.size;
    return all;
  }

  /**
   * How many resource subscriptions the lane's session `holder` holds, whether `uri` is one, and how
   * many the lane holds together (none for another holder).
   */
  resourcesOf(lane: string, holder: string, uri: string): { held: number; has: boolean; lane: number } {
    const s = this.byId.get(holder);
    if (s?.lane !== lane) return { held: 0, has: false, lane: 0 };
    return { held: s.resources.size, has: s.resources.has(uri), lane: this.laneResources(lane) };
  }

  /** Records a session's subscription (a listen stream keeps its own list in its filter). */
  trackResource(lane: string, holder: string, uri: string, on: boolean): void {
    const s = this.byId.get(holder);
    if (!s || s.lane !== lane) return;
    if (on) s.resources.add(uri);
    else s.resources.delete(uri);
  }

  /**
   * A resource update (or a task's status) for exactly these holders of the lane (sessions' GET
   * streams, listen streams). A resource update reaches only a session still subscribed to its URI.
   */
  deliverToHolders(lane: string, holders: string[], msg: Record<string, unknown>): void {
    const uri = String((msg.params as { uri?: unknown } | undefined)?.uri ?? '');
    const update = msg.method === 'notifications/resources/updated';
    for (const h of holders) {
      const s = this.byId.get(h);
      if (s?.lane === lane && (!update || s.resources.has(uri))) for (const st of s.streams) st.send(msg);
    }
    for (const l of this.listeners) {
      if (l.lane === lane && holders.includes(l.holder) && l.filter.resourceSubscriptions?.includes(uri)) l.send(msg);
    }
  }

  /**
   * Ends every session, and closes every listen stream, whose opening token is no longer admitted
   * (revoked, its lane removed or disabled, or issued before the lane's cut-off). Returns how many.
   */
  endRevoked(admitted: (claims: LaneClaims) => boolean): number {
    let n = 0;
    for (const s of [...this.byId.values()]) {
      if (!admitted(s.claims)) {
        this.end(s.id);
        n += 1;
      }
    }
    for (const l of [...this.listeners]) {
      if (!admitted(l.claims)) {
        this.listeners.delete(l);
        l.close();
        n += 1;
      }
    }
    return n;
  }

  /** Sends on every GET stream of the lane; returns whether any stream took it. */
  notifyLane(lane: string, msg: Record<string, unknown>): boolean {
    return this.notifyLaneSessions(lane, msg).length > 0;
  }

  /**
   * As notifyLane; returns the sessions whose GET stream carried it (they alone may answer a
   * request). `accept` narrows the sessions it may go to.
   */
  notifyLaneSessions(lane: string, msg: Record<string, unknown>, accept?: (s: Session) => boolean): string[] {
    const reached: string[] = [];
    const wanted = LISTEN_METHODS[String(msg.method)];
    if (wanted) for (const l of this.listeners) if (l.lane === lane && l.filter[wanted]) l.send(msg);
    for (const s of this.byId.values()) {
      if (s.lane !== lane || s.streams.size === 0 || (accept && !accept(s))) continue;
      for (const st of s.streams) st.send(msg);
      reached.push(s.id);
    }
    return reached;
  }

  /** Sends on the GET streams of one session of the lane; returns it if any stream took the message. */
  notifyHolder(lane: string, holder: string, msg: Record<string, unknown>): string[] | undefined {
    const s = this.byId.get(holder);
    if (s?.lane !== lane || s.streams.size === 0) return undefined;
    for (const st of s.streams) st.send(msg);
    return [holder];
  }

  /** Whether every session of the lane (and there is one) declared it runs this request as a client-side task. */
  takeClientTasks(lane: string, method: string): boolean {
    const path =
      method === 'sampling/createMessage'
        ? ['sampling', 'createMessage']
        : method === 'elicitation/create'
          ? ['elicitation', 'create']
          : [];
    if (path.length === 0) return false;
    let any = false;
    for (const s of this.byId.values()) {
      if (s.lane !== lane) continue;
      const requests = (s.capabilities?.tasks as { requests?: Record<string, Record<string, unknown> | undefined> } | undefined)?.requests;
      if (requests?.[path[0] as string]?.[path[1] as string] === undefined) return false;
      any = true;
    }
    return any;
  }

  count(): number {
    return this.byId.size;
  }

  countOf(lane: string): number {
    let n = 0;
    for (const s of this.byId.values()) if (s.lane === lane) n += 1;
    return n;
  }

  lanesConnected(): Set<string> {
    return new Set([...this.byId.values()].map((s) => s.lane));
  }

  /**
   * Ends sessions idle longer than the limit with no GET stream open (a client that went away
   * without DELETE), so what they hold (resource subscriptions) is let go. Returns how many.
   */
  sweep(now = Date.now()): number {
    let n = 0;
    for (const s of [...this.byId.values()]) {
      if (expired(s, now)) {
        this.end(s.id);
        n += 1;
      }
    }
    return n;
  }

  closeAll(): void {
    for (const id of [...this.byId.keys()]) this.end(id);
  }
}
