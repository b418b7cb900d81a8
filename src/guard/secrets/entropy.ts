/**
 * Small pure helpers the secret rules share: how random a string looks, and whether it is an
 * obvious placeholder or documentation example rather than a credential.
 */

/** Shannon entropy of the string's characters, in bits per character (0 for ''). */
export const shannon = (s: string): number => {
  if (s.length === 0) return 0;
  const counts = new Map<number, number>();
  for (let i = 0; i < s.length; i += 1) {
    const c = s.charCodeAt(i);
    counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
};

/**
 * Values documentation and test suites use in place of a credential: the published AWS examples,
 * runs of x or *, angle-bracketed or templated names, words that say "not real".
 */
const PLACEHOLDER_WORDS = [
  'example',
  'xxxx',
  '****',
  '....',
  'placeholder',
  'changeme',
  'change_me',
  'your_',
  'your-',
  'dummy',
  'redacted',
];
const PLACEHOLDER_EXACT = new Set(['AKIAIOSFODNN7EXAMPLE', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY']);

export const isPlaceholder = (value: string): boolean => {
  if (PLACEHOLDER_EXACT.has(value)) return true;
  if (/[<>{}]|\$\(|\$\{/.test(value)) return true;
  const lower = value.toLowerCase();
  for (const w of PLACEHOLDER_WORDS) if (lower.includes(w)) return true;
  // One character repeated (aaaa…, 0000…), or nearly so: not a credential.
  return shannon(value) < 1.5;
};
