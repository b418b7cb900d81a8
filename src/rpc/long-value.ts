/**
 * One long JSON string value decoded a window at a time (issue 19), as steps: each `yield` is a
 * place to pause. Shared by the paced parse of a few long values (paced-json.ts) and of many
 * values (paced-many.ts). Pure.
 */
import { escapeCut } from './json-tokens.js';
import { hasControl } from './parts.js';

/** Where a window of a string's raw text may end at or before `end`: never inside an escape (json-tokens.ts). */
export const safeCut = (text: string, start: number, end: number): number => escapeCut({ at: (i) => text.charCodeAt(i) }, start, end);

/**
 * The string whose token's quotes are at `open` and `close`, decoded `window` characters a step.
 * Each window is validated by JSON.parse (escapes, raw control characters); a window without a
 * backslash decodes to itself. Throws on anything JSON.parse would refuse.
 */
export function* decodeLongSteps(text: string, open: number, close: number, window: number): Generator<void, string> {
  const from = open + 1;
  const parts: string[] = [];
  let plain = true;
  for (let a = from; a < close; ) {
    const b = close - a <= window ? close : safeCut(text, a, a + window);
    if (b <= a) throw new Error('no safe cut');
    const w = text.slice(a, b);
    if (w.indexOf('\\') < 0) {
      if (hasControl(w)) throw new Error('raw control character');
      parts.push(w);
    } else {
      plain = false;
      parts.push(JSON.parse(`"${w}"`) as string);
    }
    a = b;
    if (a < close) yield;
  }
  // Without an escape the value IS its text: one slice of it, not a rope of windows.
  return plain ? text.slice(from, close) : parts.join('');
}
