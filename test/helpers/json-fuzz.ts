/**
 * Random JSON for fuzzing the codecs that must agree with JSON's own (paced-json, large-body):
 * values whose strings hold every character class that needs care, and texts mutated at random.
 */
export const ATOMS = [
  'a',
  'Z',
  ' ',
  '"',
  '\\',
  '/',
  '\n',
  '\t',
  '\u0000',
  '\u001f',
  '\u007f',
  'é',
  '😀',
  '\ud800',
  '\udc00',
  '\u2028',
  ':',
  ',',
  '{',
  '}',
  '[',
  ']',
];

export const value = (r: () => number, depth: number): unknown => {
  const k = r();
  if (depth > 3 || k < 0.45) {
    let s = '';
    const n = Math.floor(r() * 24);
    for (let i = 0; i < n; i += 1) s += ATOMS[Math.floor(r() * ATOMS.length)] as string;
    return s;
  }
  if (k < 0.55) return Math.floor(r() * 1e6) / 100;
  if (k < 0.6) return r() < 0.5 ? null : r() < 0.5;
  if (k < 0.8) return Array.from({ length: Math.floor(r() * 4) }, () => value(r, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = Math.floor(r() * 4); i > 0; i -= 1) o[String(value(r, 9))] = value(r, depth + 1);
  return o;
};

/** A text mutated at a random place: a character dropped, doubled or swapped for another (mostly invalid JSON). */
export const mutate = (text: string, r: () => number): string => {
  const i = Math.floor(r() * text.length);
  const k = r();
  if (k < 0.33) return text.slice(0, i) + text.slice(i + 1);
  if (k < 0.66) return text.slice(0, i) + text[i] + text.slice(i);
  return text.slice(0, i) + (ATOMS[Math.floor(r() * ATOMS.length)] as string) + text.slice(i + 1);
};

/** A fuzzed JSON text: a random value, pretty-printed three times in ten, mutated half the time (mostly invalid then). */
export const fuzzedText = (r: () => number): string => {
  const base = JSON.stringify(value(r, 0), null, r() < 0.3 ? 1 : undefined);
  return r() < 0.5 ? base : mutate(base, r);
};
