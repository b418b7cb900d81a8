import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pacedParse } from '../../src/rpc/paced-json.js';
import { pacedStringify } from '../../src/rpc/paced-stringify.js';
import { seeded } from '../helpers/rng.js';

/**
 * The paced codec against JSON's own, with windows of a few characters: every escape, surrogate
 * pair and token boundary lands on a window edge somewhere among the cases. Deterministic (seeded).
 */
const SIZES = { minChars: 0, longValue: 6, window: 7 };
const now = (): Promise<void> => Promise.resolve();

const ATOMS = [
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

const value = (r: () => number, depth: number): unknown => {
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
const mutate = (text: string, r: () => number): string => {
  const i = Math.floor(r() * text.length);
  const k = r();
  if (k < 0.33) return text.slice(0, i) + text.slice(i + 1);
  if (k < 0.66) return text.slice(0, i) + text[i] + text.slice(i);
  return text.slice(0, i) + (ATOMS[Math.floor(r() * ATOMS.length)] as string) + text.slice(i + 1);
};

const outcome = async (f: () => unknown | Promise<unknown>): Promise<{ ok: true; v: unknown } | { ok: false; e: string }> => {
  try {
    return { ok: true, v: await f() };
  } catch (e) {
    return { ok: false, e: (e as Error).name };
  }
};

describe('paced JSON codec, fuzzed with tiny windows against JSON.parse and JSON.stringify', () => {
  it('parses 4,000 texts (valid, pretty, and mutated) exactly as JSON.parse does', async () => {
    const r = seeded(20261201);
    let valid = 0;
    let invalid = 0;
    let inSteps = 0;
    for (let i = 0; i < 4000; i += 1) {
      const v = value(r, 0);
      const base = JSON.stringify(v, null, r() < 0.3 ? 1 : undefined);
      const text = r() < 0.5 ? base : mutate(base, r);
      const want = await outcome(() => JSON.parse(text));
      let steps = 0;
      const got = await outcome(() =>
        pacedParse(
          text,
          () => {
            steps += 1;
            return now();
          },
          SIZES,
        ),
      );
      // The whole-text fallback takes two steps at most; more is the windowed decode.
      if (want.ok && steps > 2) inSteps += 1;
      if (want.ok) valid += 1;
      else invalid += 1;
      assert.deepEqual(got, want, `text ${JSON.stringify(text)}`);
    }
    assert.ok(valid > 1500 && invalid > 500, `${valid} valid, ${invalid} invalid texts`);
    assert.ok(inSteps > valid / 4, `${inSteps} of ${valid} valid texts decoded in windows`);
  });

  it('serialises 4,000 values exactly as JSON.stringify does', async () => {
    const r = seeded(7);
    for (let i = 0; i < 4000; i += 1) {
      const v = value(r, 0);
      assert.equal((await pacedStringify(v, now, SIZES)).join(''), JSON.stringify(v));
    }
  });
});
