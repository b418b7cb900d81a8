import { closeAt, textSource } from '../../rpc/json-tokens.js';
import { BodyChunks } from './body-chunks.js';
import type { IncomingMessage } from 'node:http';

/**
 * A body read whole, or refused: over the bound (nothing more of it is read), or its client gone.
 * Read whole, it is its bytes as they arrived: the HTTP parser's chunks (small reads gathered into
 * blocks, body-chunks.ts), never copied into one buffer (a 3.9 MB body's own buffer was ~950 fresh pages to fault in, ~21 ms of the loop under
 * issue 19's byte flood); `bytes()` joins them for a caller that wants one buffer (a small body).
 */
export type BodyRead = { ok: true; chunks: Buffer[]; length: number; bytes: () => Buffer } | { ok: false; tooLarge: true };

/** The first bytes of a body read before the rest (peekBody): `ended` when they are all of it. */
export interface BodyHead {
  chunks: Buffer[];
  ended: boolean;
}

/** Follows a body until the returned function is called: its chunks, its end, and its client going away. */
const follow = (incoming: IncomingMessage, on: { data: (chunk: Buffer) => void; end: () => void; gone: () => void }): (() => void) => {
  incoming.on('data', on.data);
  incoming.on('end', on.end);
  incoming.on('error', on.gone);
  incoming.on('close', on.gone);
  return () => {
    incoming.off('data', on.data);
    incoming.off('end', on.end);
    incoming.off('error', on.gone);
    incoming.off('close', on.gone);
  };
};

/**
 * Reads a body of unknown length (chunked) until it ends or passes `limit` bytes, then pauses it:
 * whether it is small is known before it takes a turn by its size. Undefined when the client went away.
 */
export const peekBody = (incoming: IncomingMessage, limit: number): Promise<BodyHead | undefined> =>
  new Promise((resolve) => {
    if (incoming.destroyed) return resolve(undefined);
    const chunks: Buffer[] = [];
    let n = 0;
    const stop = follow(incoming, {
      data: (chunk) => {
        chunks.push(chunk);
        n += chunk.length;
        if (n <= limit) return;
        incoming.pause();
        stop();
        resolve({ chunks, ended: false });
      },
      end: () => {
        stop();
        resolve({ chunks, ended: true });
      },
      gone: () => {
        stop();
        resolve(undefined);
      },
    });
  });

/**
 * Reads a request body, counting bytes AS THEY ARRIVE, whatever Content-Length said (or did not
 * say, for a chunked body). Past `max` nothing more is kept or read: the caller answers 413, and
 * the connection closes with it (unread-body.ts). Memory held is at most `max` bytes.
 */
export const readBody = (
  incoming: IncomingMessage,
  max: number,
  /** What peekBody read already. */
  head?: BodyHead,
): Promise<BodyRead> =>
  new Promise((resolve) => {
    const kept = new BodyChunks();
    let n = 0;
    let done = false;
    let stop = (): void => undefined;
    const finish = (r: BodyRead): void => {
      if (done) return;
      done = true;
      stop();
      resolve(r);
    };
    const data = (chunk: Buffer): void => {
      n += chunk.length;
      if (n <= max) {
        kept.add(chunk);
        return;
      }
      kept.clear();
      incoming.pause();
      finish({ ok: false, tooLarge: true });
    };
    const end = (): void => {
      const chunks = kept.done();
      finish({ ok: true, chunks, length: n, bytes: () => (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, n)) });
    };
    // A client gone before its body ended (or before this read began) leaves nothing to wait for.
    const gone = (): void => finish({ ok: false, tooLarge: true });
    for (const chunk of head?.chunks ?? []) data(chunk);
    if (done) return;
    if (head?.ended) return end();
    if (incoming.destroyed) return gone();
    stop = follow(incoming, { data, end, gone });
    if (head) incoming.resume();
  });

/** Loop iterations of the depth check between two of its steps (~1-2 ms of dense escapes). */
const DEPTH_STEP = 200_000;

/**
 * The deepest nesting of arrays and objects in a JSON text, stopping as soon as it passes
 * `limit` (so a hostile 100,000-deep value costs one linear scan and nothing recursive). Pure.
 * A string is skipped with native searches for its quotes (a 3.9 MB argument cost ~3.7 ms with
 * a character-class regex, in front of other lanes), and every character is read at most once
 * by the JS loop or a search: linear in the text. Yields (undefined) every DEPTH_STEP iterations,
 * so a caller may take the check in steps.
 */
function* depthSteps(text: string, limit: number): Generator<undefined, boolean> {
  let depth = 0;
  const src = textSource(text);
  for (let i = 0, n = 0; i < text.length; i += 1, n += 1) {
    if (n >= DEPTH_STEP) {
      n = 0;
      yield undefined;
    }
    const ch = text.charCodeAt(i);
    if (ch === 34) {
      // A string: straight to its closing quote, a native search per quote inside it, none per
      // escape (searching at every escape re-read the rest of a long string each time: attack
      // round 10, 3.75 MB of `x\n` held the front 27.8 s).
      i = closeAt(src, i);
      if (i < 0) return false;
    } else if (ch === 123 || ch === 91) {
      depth += 1;
      if (depth > limit) return true;
    } else if (ch === 125 || ch === 93) depth -= 1;
  }
  return false;
}

/** Whether a JSON text nests deeper than `limit` (depthSteps, at once). */
export const jsonDepthOver = (text: string, limit: number): boolean => {
  const steps = depthSteps(text, limit);
  for (let r = steps.next(); ; r = steps.next()) if (r.done) return r.value;
};

/** jsonDepthOver in steps, `pause` between them (a large body: other lanes' messages go between). */
export const jsonDepthOverPaced = async (text: string, limit: number, pause: () => Promise<void>): Promise<boolean> => {
  const steps = depthSteps(text, limit);
  for (let r = steps.next(); ; r = steps.next()) {
    if (r.done) return r.value;
    await pause();
  }
};

/** Whether a media-range list (an Accept header) admits `type`, wildcards included. Pure. */
export const accepts = (header: string | undefined, type: string): boolean => {
  if (!header) return false;
  const [major] = type.split('/');
  return header.split(',').some((part) => {
    const range = (part.split(';')[0] ?? '').trim().toLowerCase();
    return range === type || range === '*/*' || range === `${major}/*`;
  });
};

/** Whether a Content-Type names JSON (parameters such as charset allowed). Pure. */
export const isJsonContentType = (header: string | undefined): boolean =>
  (header?.split(';')[0] ?? '').trim().toLowerCase() === 'application/json';
