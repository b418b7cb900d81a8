/**
 * JSON.parse for a large text in steps (issue 19). A 3.9 MB message costs ~5 ms to parse whole on
 * this machine, a stall another lane's small call waits behind. Nearly all of such a text is a few
 * long string values (a file, an echo, an image), so: the long string values are found by hopping
 * from quote to quote (native searches), the rest (the skeleton, with a placeholder for each) is
 * parsed whole, and each long value is decoded a window at a time, `pause` between windows.
 *
 * The result is JSON.parse's, exactly: the skeleton is the same text with some string tokens
 * swapped for other string tokens, so JSON.parse judges its structure, and each window of a long
 * value is decoded (and so validated: escapes, raw control characters) by JSON.parse as well. A
 * window without a backslash decodes to itself, and is kept as a slice of the text (no copy).
 * Anything unexpected (a cut that splits an escape, a text that is not JSON) falls back to one
 * JSON.parse of the whole text, which then throws as it would have. A large text that is not a few
 * long values (none, or more string tokens than the scan counts) is parsed as many values, in
 * batches (paced-many.ts).
 */
import { type LongToken, longTokens, longTokensPaced, textSource } from './json-tokens.js';
import { decodeLongSteps } from './long-value.js';
import { drive } from './steps.js';
import { manySteps } from './paced-many.js';
import { fillPlaceholders, placeholder } from './placeholders.js';

/** A string value this long or longer is decoded in windows; shorter ones stay in the skeleton. */
export const LONG_VALUE_CHARS = 64 * 1024;
/** Characters of a long value decoded per step. */
export const WINDOW_CHARS = 256 * 1024;

/** The sizes the steps are cut by (tests make them small to put every edge case on a window edge). */
export interface PaceSizes {
  /** A text shorter than this is parsed at once. */
  minChars: number;
  /** A string value this long or longer is a long value. */
  longValue: number;
  /** Characters of a long value decoded or escaped per step. */
  window: number;
}

export const PACE_SIZES: PaceSizes = { minChars: 4 * LONG_VALUE_CHARS, longValue: LONG_VALUE_CHARS, window: WINDOW_CHARS };

/** The long string values of a JSON text; undefined when it has none or too many tokens to be worth it. */
export const longValues = (text: string, longValue = LONG_VALUE_CHARS): LongToken[] | undefined => longTokens(textSource(text), longValue);

/** The text with each long value replaced by a placeholder naming its index. */
const skeletonOf = (text: string, long: readonly LongToken[]): string => {
  const out: string[] = [];
  let at = 0;
  long.forEach((t, i) => {
    out.push(text.slice(at, t.open), placeholder(i));
    at = t.close + 1;
  });
  out.push(text.slice(at));
  return out.join('');
};

/** A text of many values, parsed in batches (paced-many.ts); anything unexpected: at once, as JSON.parse would. */
const parseMany = async (text: string, pause: () => Promise<void>, window: number): Promise<unknown> => {
  try {
    return await drive(manySteps(text, { window }), pause);
  } catch {
    await pause();
    return JSON.parse(text);
  }
};

/**
 * JSON.parse(text), in steps when the text is long and made of a few long string values; at once
 * otherwise. Throws what JSON.parse throws.
 */
export const pacedParse = async (text: string, pause: () => Promise<void>, sizes: Partial<PaceSizes> = {}): Promise<unknown> => {
  const z = { ...PACE_SIZES, ...sizes };
  if (text.length < z.minChars) return JSON.parse(text);
  // Found in steps too: a text of escaped quotes is millions of hops (json-tokens.ts).
  const long = await longTokensPaced(textSource(text), z.longValue, pause);
  // Not a few long values (none, or past the token limit): many values, cut where JSON allows.
  if (!long) return parseMany(text, pause, z.window);
  let skeleton: unknown;
  let values: string[];
  try {
    const bare = skeletonOf(text, long);
    skeleton = JSON.parse(bare);
    values = [];
    for (const t of long) {
      await pause();
      values.push(await drive(decodeLongSteps(text, t.open, t.close, z.window), pause));
    }
  } catch {
    await pause();
    return JSON.parse(text);
  }
  await pause();
  return fillPlaceholders(skeleton, (i) => values[i] as string);
};
