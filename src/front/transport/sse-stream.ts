import { type Exchange, Replied } from './exchange.js';
import { drainedOrStalled, PACE_SLICE, writePaced } from './paced-write.js';
import { restoreExactIds } from './big-ids.js';

/** An open SSE response: events out, with backpressure, until the handler returns or the client goes. */
export interface SseStream {
  readonly aborted: boolean;
  /** One event; `data` may hold line breaks (each line becomes a `data:` field). */
  writeSSE(m: { event?: string; data: string; id?: string }): Promise<void>;
  /** Raw text (a comment line, for a keep-alive). */
  write(text: string): Promise<void>;
  /** Runs when the client goes away before the stream ended. */
  onAbort(cb: () => void): void;
}

/** The event as the SSE format writes it: event, data lines, id, then a blank line. */
export const sseEvent = (m: { event?: string; data: string; id?: string }): string =>
  `${m.event ? `event: ${m.event}\n` : ''}${m.data
    .split(/\r\n|\r|\n/)
    .map((l) => `data: ${l}\n`)
    .join('')}${m.id ? `id: ${m.id}\n` : ''}\n`;

/**
 * Answers with an SSE stream: the headers go out at once (a client waiting on a quiet stream sees
 * it open), `run` writes the events, and the response ends when `run` returns or throws.
 */
export const streamSse = (c: Exchange, run: (s: SseStream) => Promise<void>): Replied => {
  const out = c.outgoing;
  out.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  out.flushHeaders();
  // A client may be gone before its stream starts (while its call ran): then nothing waits on it.
  let aborted = out.destroyed || out.closed;
  const aborts: Array<() => void> = [];
  if (!aborted)
    out.once('close', () => {
      if (out.writableFinished) return;
      aborted = true;
      for (const f of aborts.splice(0)) f();
    });
  const write = async (text: string): Promise<void> => {
    if (aborted || out.writableEnded || out.destroyed) return;
    if (c.exactIds) text = restoreExactIds(text);
    const pace = c.pace;
    if (pace && text.length > PACE_SLICE) {
      // A large event is held against the lane's unsent bytes and paced; over the budget, the
      // stream is closed (its status went out long ago): its buffers go with it.
      const held = pace.hold(text.length, out.writableLength);
      if (!held.ok) {
        out.destroy();
        return;
      }
      try {
        await writePaced(out, text, pace.stallMs());
      } finally {
        held.release();
      }
      return;
    }
    if (!out.write(text)) await drainedOrStalled(out, pace?.stallMs());
  };
  const stream: SseStream = {
    get aborted() {
      return aborted;
    },
    write,
    writeSSE: (m) => write(sseEvent(m)),
    onAbort: (cb) => {
      if (aborted) cb();
      else aborts.push(cb);
    },
  };
  void (async () => {
    try {
      await run(stream);
    } catch {
      // A failing producer ends its stream; what it wrote stands.
    } finally {
      if (!out.writableEnded) out.end();
    }
  })();
  return new Replied(200);
};
