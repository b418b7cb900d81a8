/**
 * A compact confusables table for tool names (after UTS #39's skeleton): Cyrillic and Greek
 * letters that look like Latin ones, fullwidth forms (NFKC folds those), and the ASCII look-alikes
 * names are spoofed with (0/o, 1/l/I, rn/m, vv/w). Two names with the same skeleton read the same
 * to a person and are easy to pick one for the other. Pure.
 */
/** Capitals first: a capital look-alike is read before case folding (Greek Ν is N, its lower case ν is v). */
const UPPER: Record<string, string> = {
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
  У: 'Y',
  І: 'I',
  Ј: 'J',
  Ѕ: 'S',
  Ԁ: 'D',
  Α: 'A',
  Β: 'B',
  Ε: 'E',
  Ζ: 'Z',
  Η: 'H',
  Ι: 'I',
  Κ: 'K',
  Μ: 'M',
  Ν: 'N',
  Ο: 'O',
  Ρ: 'P',
  Τ: 'T',
  Υ: 'Y',
  Χ: 'X',
  Ϲ: 'C',
};

const TABLE: Record<string, string> = {
  // Cyrillic
  а: 'a',
  б: '6',
  в: 'b',
  г: 'r',
  е: 'e',
  ё: 'e',
  з: '3',
  и: 'u',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  п: 'n',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  ч: '4',
  ь: 'b',
  ѕ: 's',
  і: 'i',
  ї: 'i',
  ј: 'j',
  һ: 'h',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  ӏ: 'l',
  ү: 'y',
  ɡ: 'g',
  // Greek
  α: 'a',
  β: 'b',
  γ: 'y',
  ε: 'e',
  ζ: 'z',
  η: 'n',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  σ: 'o',
  τ: 't',
  υ: 'u',
  χ: 'x',
  ω: 'w',
  ϲ: 'c',
  ϳ: 'j',
  // Latin look-alikes outside ASCII
  ı: 'i',
  ȷ: 'j',
  ł: 'l',
  ɩ: 'i',
  ʟ: 'l',
  ɑ: 'a',
  ℓ: 'l',
  // ASCII digits that pass for letters in names
  '0': 'o',
  '1': 'l',
  '3': 'e',
  '5': 's',
  '|': 'l',
};

/**
 * The name's skeleton: NFKC, lower case, every look-alike mapped to its Latin letter, "rn" read
 * as "m", "vv" as "w", "i" as "l" (l/I/1 are one shape in many fonts), and separators (-, _, .,
 * space) as one. Names are compared by skeleton only.
 */
export const skeleton = (name: string): string => {
  const folded = [
    ...[...name.normalize('NFKC')]
      .map((c) => UPPER[c] ?? c)
      .join('')
      .toLowerCase(),
  ]
    .map((c) => TABLE[c] ?? c)
    .join('');
  return folded
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/rn/g, 'm')
    .replace(/vv/g, 'w')
    .replace(/i/g, 'l')
    .replace(/[-_.\s]+/g, '_');
};

/** Whether the name mixes Latin letters with letters of another script (Cyrillic, Greek). */
export const mixesScripts = (name: string): boolean => /[a-z]/i.test(name) && /[\u0370-\u03ff\u0400-\u04ff\u0500-\u052f]/.test(name);

/**
 * How many characters of a name stand in for a letter they only look like: letters of another
 * script, and the ASCII digits and signs read as letters (0/o, 1/l, 3/e, 5/s, |/l). Of two names
 * that read the same, the one with fewer stand-ins is the plain spelling, the other its imitation.
 */
export const standIns = (name: string): number =>
  [...name.normalize('NFKC')].filter((c) => c > '\u007e' || UPPER[c] !== undefined || TABLE[c] !== undefined).length;
