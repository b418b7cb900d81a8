import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pacedParse } from '../../src/rpc/paced-json.js';
import { pacedStringify } from '../../src/rpc/paced-stringify.js';
import { seeded } from '../helpers/rng.js';
import { fuzzedText, value } from '../helpers/json-fuzz.js';

/**
 * The paced codec against JSON's own, with windows of a few characters: every escape, surrogate
 * pair and token boundary lands on a window edge somewhere among the cases. Deterministic (seeded).
 */
const SIZES = { minChars: 0, longValue: 6, window: 7 };
const now = (): Promise<void> => Promise.resolve();

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
      const text = fuzzedText(r);
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
