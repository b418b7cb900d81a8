/**
 * Fair shares of the gateway's call capacity. A lane alone may have up to `perLane` calls in
 * flight. When several lanes are active (a call in flight, queued, or finished within the last
 * `activeMs`), each may run at most max(minShare, floor(budget / active lanes)) at once; its next
 * calls WAIT in its own queue (FIFO) until one of its calls ends, so a flooding lane cannot take
 * the CPU, the hosts and the upstreams away from a quiet one. Past `perLane` calls in flight and
 * waiting, the caller refuses (429). Pure bookkeeping: the clock is passed in.
 */
interface LaneState {
  inFlight: number;
  queue: { start: () => void }[];
  lastActive: number;
}

export interface FairLimits {
  perLane: number;
  budget: number;
  minShare: number;
  activeMs: number;
}

export type Admission =
  | { kind: 'run'; release: () => void }
  | { kind: 'wait'; started: Promise<() => void>; cancel: () => void }
  | { kind: 'full' };

export class FairShare {
  private readonly lanes = new Map<string, LaneState>();

  constructor(
    private readonly limits: () => FairLimits,
    private readonly now: () => number = Date.now,
  ) {}

  private state(lane: string): LaneState {
    let s = this.lanes.get(lane);
    if (!s) {
      s = { inFlight: 0, queue: [], lastActive: 0 };
      this.lanes.set(lane, s);
    }
    return s;
  }

  /** Active: something in flight or waiting, or a call within the last activeMs. */
  private isActive(s: LaneState | undefined, now: number, windowMs: number): boolean {
    return s !== undefined && (s.inFlight > 0 || s.queue.length > 0 || now - s.lastActive < windowMs);
  }

  /** How many calls this lane may run at once right now (the lane itself counts as active). */
  share(lane: string, now = this.now()): number {
    const l = this.limits();
    let active = this.isActive(this.lanes.get(lane), now, l.activeMs) ? 0 : 1;
    for (const s of this.lanes.values()) if (this.isActive(s, now, l.activeMs)) active += 1;
    return active <= 1 ? l.perLane : Math.min(l.perLane, Math.max(l.minShare, Math.floor(l.budget / active)));
  }

  /** How many lanes are active now (a call in flight or waiting, or one within activeMs). */
  activeLanes(now = this.now()): number {
    const l = this.limits();
    let n = 0;
    for (const s of this.lanes.values()) if (this.isActive(s, now, l.activeMs)) n += 1;
    return n;
  }

  /** A call of `lane` wants to start. */
  enter(lane: string): Admission {
    const now = this.now();
    const s = this.state(lane);
    if (s.inFlight + s.queue.length >= this.limits().perLane) return { kind: 'full' };
    if (s.queue.length === 0 && s.inFlight < this.share(lane, now)) {
      s.inFlight += 1;
      s.lastActive = now;
      return { kind: 'run', release: this.releaser(lane) };
    }
    let start: () => void = () => undefined;
    const started = new Promise<() => void>((resolve) => {
      start = () => resolve(this.releaser(lane));
    });
    const entry = { start };
    s.queue.push(entry);
    s.lastActive = now;
    return {
      kind: 'wait',
      started,
      cancel: () => {
        const i = s.queue.indexOf(entry);
        if (i >= 0) s.queue.splice(i, 1);
      },
    };
  }

  private releaser(lane: string): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const s = this.state(lane);
      s.inFlight -= 1;
      s.lastActive = this.now();
      this.pump();
    };
  }

  /** Starts waiting calls wherever a lane is under its share again. */
  private pump(): void {
    const now = this.now();
    for (const [lane, s] of this.lanes) {
      while (s.queue.length > 0 && s.inFlight < this.share(lane, now)) {
        const next = s.queue.shift();
        s.inFlight += 1;
        s.lastActive = now;
        next?.start();
      }
    }
  }

  /** Re-checks the queues: a share grows when another lane goes quiet (call on a timer). */
  tick(): void {
    this.pump();
  }

  inFlightOf(lane: string): number {
    return this.lanes.get(lane)?.inFlight ?? 0;
  }
}
