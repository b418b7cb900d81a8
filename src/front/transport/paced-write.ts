import type { ServerResponse } from 'node:http';
import { PieceCursor, type WireParts, writeCorked } from '../../rpc/parts.js';

/** An answer up to this many characters is written at once; a longer one a slice at a time. */
export const PACE_SLICE = 64 * 1024;

/**
 * Resolves true once the response can take more, false if it closed or its client took nothing
 * for `stallMs` (then the connection is destroyed: its buffers go with it). `stallMs` undefined:
 * wait for as long as the connection stays open.
 */
export const drainedOrStalled = (out: ServerResponse, stallMs?: number): Promise<boolean> =>
  new Promise((resolve) => {
    if (out.destroyed || out.closed) return resolve(false);
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      out.off('drain', onDrain);
      out.off('close', onClose);
      resolve(ok);
    };
    const onDrain = (): void => done(true);
    const onClose = (): void => done(false);
    const timer =
      stallMs === undefined
        ? undefined
        : setTimeout(() => {
            done(false);
            out.destroy();
          }, stallMs);
    out.on('drain', onDrain);
    out.on('close', onClose);
  });

/**
 * Writes `text` (a string, or its parts, never joined) to the response a slice at a time, waiting
 * for the socket to take each one before the next: the front's event loop serves other lanes
 * between slices, node never buffers more than a slice for a slow client, and a client that stops
 * reading for `stallMs` loses its connection instead of holding the answer for ever. Resolves
 * true when all of it was taken.
 */
export const writePaced = async (out: ServerResponse, text: string | WireParts, stallMs: number): Promise<boolean> => {
  const cursor = new PieceCursor(typeof text === 'string' ? [text] : text);
  while (cursor.left > 0) {
    if (out.destroyed || out.writableEnded) return false;
    // The piece as the answer's own strings (a large result's link slices), one corked write, never joined.
    const more = writeCorked(out, cursor.nextParts(PACE_SLICE));
    if (!more && !(await drainedOrStalled(out, stallMs))) return false;
  }
  return true;
};
