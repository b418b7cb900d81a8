/**
 * Hidden-content detection and normalisation. Invisible characters are findings in their own
 * right (a description has no honest use for a bidi override or a Unicode tag character), and
 * the text is then normalised (tag characters decoded, invisibles removed, NFKC) so the rules
 * see what a model would read. Pure.
 */
export interface Hidden {
  kind: 'tag_characters' | 'bidi_controls' | 'zero_width' | 'mixed_script';
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

// biome-ignore lint/suspicious/noControlCharactersInRegex: the range is all of ASCII, on purpose
const NON_ASCII = /[^\x00-\x7f]/;

export const findHidden = (text: string): Hidden[] => {
  const out: Hidden[] = [];
  if (!NON_ASCII.test(text)) return out;
  for (const m of text.matchAll(TAG)) {
    const decoded = [...m[0]].map((c) => String.fromCodePoint((c.codePointAt(0) ?? 0) - 0xe0000)).join('');
    out.push({ kind: 'tag_characters', shown: esc(m[0]), decoded: decoded.replace(/[^\x20-\x7e]/g, '') });
  }
  const bidi = text.match(BIDI);
  if (bidi) out.push({ kind: 'bidi_controls', shown: esc(bidi.join('')) });
  const zw = [...(text.match(ZERO_WIDTH) ?? []), ...(text.match(ZWJ_OUTSIDE_EMOJI) ?? [])];
  if (zw.length > 0) out.push({ kind: 'zero_width', shown: esc(zw.join('')) });
  const mixed = mixedScriptWords(text);
  if (mixed.length >= 2) out.push({ kind: 'mixed_script', shown: `look-alike letters in ${mixed.slice(0, 4).join(' ')}` });
  return out;
};

// Latin look-alikes from Cyrillic and Greek: folded so "Іgnоrе" reads as "Ignore".
const CONFUSABLES: Record<string, string> = {
  а: 'a',
  е: 'e',
  о: 'o',
  р: 'p',
  с: 'c',
  у: 'y',
  х: 'x',
  і: 'i',
  ј: 'j',
  ѕ: 's',
  ԁ: 'd',
  һ: 'h',
  ԛ: 'q',
  ԝ: 'w',
  ӏ: 'l',
  А: 'A',
  В: 'B',
  Е: 'E',
  К: 'K',
  М: 'M',
  Н: 'H',
  О: 'O',
  Р: 'P',
  С: 'C',
  Т: 'T',
  Х: 'X',
  І: 'I',
  Ј: 'J',
  Ѕ: 'S',
  ο: 'o',
  α: 'a',
  ε: 'e',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  Ο: 'O',
  Α: 'A',
  Β: 'B',
  Ε: 'E',
  Ι: 'I',
  Κ: 'K',
  Μ: 'M',
  Ν: 'N',
  Ρ: 'P',
  Τ: 'T',
  Χ: 'X',
};
const CONFUSABLE_RE = new RegExp(`[${Object.keys(CONFUSABLES).join('')}]`, 'g');
const CONFUSABLE_TEST = new RegExp(`[${Object.keys(CONFUSABLES).join('')}]`);

/** A word mixing Latin with Cyrillic/Greek look-alikes: how "Іgnоrе" evades a keyword filter. */
export const mixedScriptWords = (text: string): string[] =>
  (text.match(/[\p{L}]+/gu) ?? []).filter((w) => /[a-zA-Z]/.test(w) && /[\u0370-\u03ff\u0400-\u04ff]/.test(w));

/** "d i s r e g a r d" → "disregard": letter-spacing defeats phrase rules otherwise. */
const collapseSpaced = (s: string): string =>
  s.replace(/(?<!\S)(?:\S {1,2}){6,}\S(?!\S)/g, (m) =>
    m
      .split(/ {2,}/)
      .map((w) => w.replace(/ /g, ''))
      .join(' '),
  );

/** What the rules read: tag characters decoded in place, invisibles removed, NFKC, whitespace folded. */
export const normalise = (text: string): string =>
  (NON_ASCII.test(text) ? unicodeFold(text) : text).split('\n').map(collapseSpaced).join('\n').replace(/\s+/g, ' ');

const unicodeFold = (text: string): string =>
  text
    .replace(TAG, (m) => [...m].map((c) => String.fromCodePoint((c.codePointAt(0) ?? 0) - 0xe0000)).join(''))
    .replace(BIDI, '')
    .replace(ZERO_WIDTH, '')
    .replace(/\u200D/g, '')
    .normalize('NFKC')
    .replace(MIXED_WORD, (w) => (/[a-zA-Z]/.test(w) && CONFUSABLE_TEST.test(w) ? w.replace(CONFUSABLE_RE, (c) => CONFUSABLES[c] ?? c) : w));

/** Look-alikes are folded only inside words that also hold Latin letters: Russian stays Russian. */
const MIXED_WORD = /\p{L}+/gu;
