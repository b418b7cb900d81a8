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

/**
 * The most messages a stream holds for a client that does not read. Past it the oldest
 * notification goes (progress and log lines are lossy by nature; a server's request never is):
 * a lane that stops reading costs the front a bounded queue, not whatever its calls produce.
 */
export const MAX_QUEUED = 1000;

/** The most bytes of messages a stream holds for a client that does not read (the same rule: oldest notifications go). */
export const MAX_QUEUED_BYTES = 16 * 1024 * 1024;

/** A queued message's text as it will be written, kept beside it (symbol keys are not serialised): serialised once. */
const TEXT = Symbol('text');
const textOf = (m: Message): string => ((m as { [TEXT]?: string })[TEXT] ??= JSON.stringify(m) ?? '');
const isNotification = (q: Message): boolean => typeof q.method === 'string' && q.method.startsWith('notifications/') && q.id === undefined;

/** The bytes each queue holds, kept by enqueue, dequeue and clearQueue (summing the queue per message made a flood quadratic). */
const held = new WeakMap<Message[], number>();
const heldBytes = (queue: Message[]): number => {
  let b = held.get(queue);
  if (b === undefined) {
    b = 0;
    for (const q of queue) b += textOf(q).length;
  }
  return b;
};

/** Queues `m`, dropping the oldest notifications while the queue is over its count or its bytes. */
export const enqueue = (queue: Message[], m: Message): void => {
  let bytes = heldBytes(queue) + textOf(m).length;
  while (queue.length >= MAX_QUEUED || bytes > MAX_QUEUED_BYTES) {
    const i = queue.findIndex(isNotification);
    if (i < 0) break;
    bytes -= textOf(queue[i] as Message).length;
    queue.splice(i, 1);
  }
  queue.push(m);
  held.set(queue, bytes);
};

/** The oldest queued message's text, taken off the queue. */
export const dequeue = (queue: Message[]): string | undefined => {
  const m = queue.shift();
  if (m === undefined) return undefined;
  const text = textOf(m);
  held.set(queue, Math.max(0, heldBytes(queue) - text.length));
  return text;
};

/** Empties a queue (its messages dropped). */
export const clearQueue = (queue: Message[]): void => {
  queue.length = 0;
  held.set(queue, 0);
};

/** However long a stream lives, its loop is bounded. */
const MAX_TURNS = 10_000_000;

/**
 * The one SSE pump of the front: a GET stream, a subscriptions/listen stream and a call's stream
 * all drain their queue as `message` events, then end, finish with a last message, or wait (with
 * a keep-alive comment when asked) until they are woken. Ends when the client goes away.
 */
export const pumpSse = async (stream: SseStream, src: PumpSource): Promise<void> => {
  for (let turn = 0; turn < MAX_TURNS && !stream.aborted; turn += 1) {
    for (let text = dequeue(src.queue); text !== undefined; text = dequeue(src.queue))
      await stream.writeSSE({ event: 'message', data: text });
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
      enqueue(queue, m);
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
