import type { SseStream } from './sse-stream.js';

type Message = Record<string, unknown>;

export interface PumpSource {
  /** Messages waiting to go out, in order. */
  queue: Message[];
  /** Arms the wake-up for the next wait; call `wake` at once if something is already pending. */
  arm: (wake: () => void) => void;
  /** After the queue is drained: keep waiting (undefined), write this last message and end, or end (null). */
  after: () => Message | null | undefined | Promise<Message | null | undefined>;
  /** A comment line after this long without a message (streams that stay open). */
  keepAliveMs?: number;
}

/** However long a stream lives, its loop is bounded. */
const MAX_TURNS = 10_000_000;

/**
 * The one SSE pump of the front: a GET stream, a subscriptions/listen stream and a call's stream
 * all drain their queue as `message` events, then end, finish with a last message, or wait (with
 * a keep-alive comment when asked) until they are woken. Ends when the client goes away.
 */
export const pumpSse = async (stream: SseStream, src: PumpSource): Promise<void> => {
  for (let turn = 0; turn < MAX_TURNS && !stream.aborted; turn += 1) {
    while (src.queue.length > 0) await stream.writeSSE({ event: 'message', data: JSON.stringify(src.queue.shift()) });
    const last = await src.after();
    if (last === null) return;
    if (last !== undefined) {
      await stream.writeSSE({ event: 'message', data: JSON.stringify(last) });
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await new Promise<boolean>((resolve) => {
      if (src.keepAliveMs !== undefined) timer = setTimeout(() => resolve(true), src.keepAliveMs);
      src.arm(() => resolve(false));
    });
    clearTimeout(timer);
    if (timedOut && src.queue.length === 0) await stream.write(': keep-alive\n\n');
  }
};

export const KEEP_ALIVE_MS = 25_000;

/** A queue of a stream that stays open: producers push or close, the pump drains it. */
export interface PumpQueue {
  push: (m: Message) => void;
  /** Ends the stream once what is queued has gone out. */
  close: () => void;
  source: PumpSource;
}

export const pumpQueue = (keepAliveMs = KEEP_ALIVE_MS): PumpQueue => {
  const queue: Message[] = [];
  let wake: () => void = () => undefined;
  let closed = false;
  return {
    push: (m) => {
      queue.push(m);
      wake();
    },
    close: () => {
      closed = true;
      wake();
    },
    source: {
      queue,
      arm: (w) => {
        wake = w;
        if (queue.length > 0 || closed) w();
      },
      after: () => (closed ? null : undefined),
      keepAliveMs,
    },
  };
};
