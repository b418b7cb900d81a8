/** A request body up to this size takes no byte turn (the common case costs nothing). */
export const BYTE_TURN_MIN = 64 * 1024;

/**
 * Request bytes a lane has in flight. A lane's large requests take turns by their size: one runs
 * while the lane's bytes in flight stay under its share of the bound (the bound divided among the
 * active lanes; a single request larger than that runs alone), the next waits in the lane's own queue, FIFO, with its body still unread in the
 * socket (TCP pushes back on the client), so a lane sending many large requests at once costs the
 * gateway its bound, not their sum. Pure bookkeeping.
 */
interface LaneBytes {
  inFlight: number;
  queue: { bytes: number; start: () => void }[];
}

export type ByteAdmission = { kind: 'run'; release: () => void } | { kind: 'wait'; started: Promise<() => void>; cancel: () => void };

export class ByteTurns {
  private readonly lanes = new Map<string, LaneBytes>();

  /** `limit`: the bytes a lane may have in flight now (its share: smaller while other lanes are active). */
  constructor(private readonly limit: () => number) {}

  private fits(s: LaneBytes, bytes: number): boolean {
    return s.inFlight === 0 || s.inFlight + bytes <= this.limit();
  }

  /** Re-checks every lane's queue: a share grows back when the other lanes go quiet (call on a timer). */
  tick(): void {
    for (const lane of [...this.lanes.keys()]) this.pump(lane);
  }

  enter(lane: string, bytes: number): ByteAdmission {
    let s = this.lanes.get(lane);
    if (!s) {
      s = { inFlight: 0, queue: [] };
      this.lanes.set(lane, s);
    }
    const st = s;
    if (st.queue.length === 0 && this.fits(st, bytes)) {
      st.inFlight += bytes;
      return { kind: 'run', release: this.releaser(lane, bytes) };
    }
    let start: () => void = () => undefined;
    const started = new Promise<() => void>((resolve) => {
      start = () => resolve(this.releaser(lane, bytes));
    });
    const entry = { bytes, start };
    st.queue.push(entry);
    return {
      kind: 'wait',
      started,
      cancel: () => {
        const i = st.queue.indexOf(entry);
        if (i >= 0) st.queue.splice(i, 1);
        this.pump(lane);
      },
    };
  }

  private releaser(lane: string, bytes: number): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const s = this.lanes.get(lane);
      if (!s) return;
      s.inFlight -= bytes;
      this.pump(lane);
    };
  }

  private pump(lane: string): void {
    const s = this.lanes.get(lane);
    if (!s) return;
    while (s.queue.length > 0 && this.fits(s, s.queue[0]?.bytes ?? 0)) {
      const next = s.queue.shift();
      if (!next) break;
      s.inFlight += next.bytes;
      next.start();
    }
    if (s.inFlight === 0 && s.queue.length === 0) this.lanes.delete(lane);
  }

  inFlightOf(lane: string): number {
    return this.lanes.get(lane)?.inFlight ?? 0;
  }
}
