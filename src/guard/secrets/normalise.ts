import { FOLDS_TO_ASCII } from './fold-table.js';

const foldClass = FOLDS_TO_ASCII.split(' ')
  .map((r) => r.split('-').map((h) => `\\u{${h}}`))
  .map(([a, b]) => (b ? `${a}-${b}` : a))
  .join('');
/** Removed before scanning: format characters (Cf: zero-width spaces and joiners, soft hyphen, BOM, bidi and tag controls) and every other default-ignorable (variation selectors, fillers). */
const HIDDEN = /[\p{Cf}\p{DI}]/u;
const DISGUISE_SOURCE = `[\\p{Cf}\\p{DI}${foldClass}]`;
/**
 * A character the scan must not see as it is: one that renders as nothing (HIDDEN) or whose NFKC
 * form is ASCII (`ｇｈｐ＿`, `𝐀`, `ﬁ`, `²`). Text without one (all ASCII, most prose in any script)
 * costs this one test and is scanned as it is.
 */
export const DISGUISED = new RegExp(DISGUISE_SOURCE, 'u');
const DISGUISED_ALL = new RegExp(DISGUISE_SOURCE, 'gu');

const folds = new Map<string, string>();
/** What one disguised character reads as: nothing, or its ASCII NFKC form. Memoised (a few thousand at most). */
const foldOf = (ch: string): string => {
  let f = folds.get(ch);
  if (f === undefined) {
    f = HIDDEN.test(ch) ? '' : ch.normalize('NFKC');
    folds.set(ch, f);
  }
  return f;
};

/**
 * Where each character of the normalised text came from. Pieces, in order: a run copied with a fixed
 * offset (normalised i came from original i - delta), or one folded character (every character it
 * became came from its whole original range). Held only for a string that needed normalising; its
 * size follows the disguised characters, not the string.
 */
export class IndexMap {
  private readonly at: number[] = [];
  private readonly from: number[] = [];
  /** -1 for a run; else the end, in the original, of the one character this piece folded. */
  private readonly to: number[] = [];

  run(n: number, o: number): void {
    const last = this.at.length - 1;
    if (last >= 0 && this.to[last] === -1 && (this.from[last] as number) - (this.at[last] as number) === o - n) return;
    this.push(n, o, -1);
  }

  folded(n: number, o: number, oEnd: number): void {
    this.push(n, o, oEnd);
  }

  /** The original range of normalised [start, end), end > start: from its first character's start to its last's end. */
  range(start: number, end: number): [number, number] {
    const p = this.piece(start);
    const q = this.piece(end - 1);
    const s = this.to[p] === -1 ? (this.from[p] as number) + start - (this.at[p] as number) : (this.from[p] as number);
    const e = this.to[q] === -1 ? (this.from[q] as number) + end - (this.at[q] as number) : (this.to[q] as number);
    return [s, e];
  }

  private push(n: number, o: number, oEnd: number): void {
    this.at.push(n);
    this.from.push(o);
    this.to.push(oEnd);
  }

  /** The last piece starting at or before normalised index i (binary search). */
  private piece(i: number): number {
    let lo = 0;
    let hi = this.at.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.at[mid] as number) <= i) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

/** A string as the scan reads it, and how to find the original of what it finds there. */
export interface Normalised {
  text: string;
  map: IndexMap;
}

/**
 * The text with hidden characters removed and compatibility forms folded to ASCII, or undefined when
 * it holds none (nothing to do). One pass, linear in the string.
 */
export const normalise = (text: string): Normalised | undefined => {
  if (!DISGUISED.test(text)) return undefined;
  const map = new IndexMap();
  const parts: string[] = [];
  let n = 0;
  let o = 0;
  DISGUISED_ALL.lastIndex = 0;
  for (let m = DISGUISED_ALL.exec(text); m !== null; m = DISGUISED_ALL.exec(text)) {
    if (m.index > o) {
      map.run(n, o);
      parts.push(text.slice(o, m.index));
      n += m.index - o;
    }
    const ch = m[0];
    const f = foldOf(ch);
    // A one-for-one fold (full-width ASCII) keeps the run's offset; anything else is its own piece.
    if (ch.length === 1 && f.length === 1) map.run(n, m.index);
    else if (f.length > 0) map.folded(n, m.index, m.index + ch.length);
    parts.push(f);
    n += f.length;
    o = m.index + ch.length;
  }
  DISGUISED_ALL.lastIndex = 0;
  if (o < text.length) {
    map.run(n, o);
    parts.push(text.slice(o));
  }
  return { text: parts.join(''), map };
};
