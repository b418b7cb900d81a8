/**
 * Hidden-content detection and normalisation. Invisible characters are findings in their own
 * right (a description has no honest use for a bidi override or a Unicode tag character), and
 * the text is then normalised (tag characters decoded, invisibles removed, NFKC) so the rules
 * see what a model would read. Pure.
 */
export interface Hidden {
  kind: 'tag_characters' | 'bidi_controls' | 'zero_width';
  /** The characters as escapes, and for tag characters the smuggled text. */
  shown: string;
  decoded?: string;
}

const TAG = /[\u{E0000}-\u{E007F}]+/gu;
const BIDI = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g;
// ZWSP, ZWNJ, word joiner, invisible operators, BOM, Mongolian vowel separator. ZWJ handled apart.
const ZERO_WIDTH = /[\u200B\u200C\u2060-\u2064\uFEFF\u180E\u00AD]/g;
const ZWJ_OUTSIDE_EMOJI = /(?<!\p{Extended_Pictographic}\uFE0F?)\u200D|\u200D(?!\p{Extended_Pictographic})/gu;

const esc = (s: string): string =>
  [...s]
    .slice(0, 12)
    .map((c) => `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`)
    .join(' ');

export const findHidden = (text: string): Hidden[] => {
  const out: Hidden[] = [];
  for (const m of text.matchAll(TAG)) {
    const decoded = [...m[0]].map((c) => String.fromCodePoint((c.codePointAt(0) ?? 0) - 0xe0000)).join('');
    out.push({ kind: 'tag_characters', shown: esc(m[0]), decoded: decoded.replace(/[^\x20-\x7e]/g, '') });
  }
  const bidi = text.match(BIDI);
  if (bidi) out.push({ kind: 'bidi_controls', shown: esc(bidi.join('')) });
  const zw = [...(text.match(ZERO_WIDTH) ?? []), ...(text.match(ZWJ_OUTSIDE_EMOJI) ?? [])];
  if (zw.length > 0) out.push({ kind: 'zero_width', shown: esc(zw.join('')) });
  return out;
};

/** What the rules read: tag characters decoded in place, invisibles removed, NFKC, whitespace folded. */
export const normalise = (text: string): string =>
  text
    .replace(TAG, (m) => [...m].map((c) => String.fromCodePoint((c.codePointAt(0) ?? 0) - 0xe0000)).join(''))
    .replace(BIDI, '')
    .replace(ZERO_WIDTH, '')
    .replace(/\u200D/g, '')
    .normalize('NFKC')
    .replace(/\s+/g, ' ');
