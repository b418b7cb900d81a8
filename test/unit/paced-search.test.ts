import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { longTokens, longTokensPaced, textSource } from '../../src/rpc/json-tokens.js';
import { pacedParse } from '../../src/rpc/paced-json.js';
import { partsInclude } from '../../src/rpc/parts-text.js';
import { RawResult, SEARCH_STEP_CHARS } from '../../src/rpc/raw.js';
import { seeded } from '../helpers/rng.js';
import { fuzzedText } from '../helpers/json-fuzz.js';

/**
 * Attack round 38: a 31 MB answer of escaped quotes (`\\\"` repeated) cost a host a 172-318 ms
 * token scan before its paced parse first paused, and the front five 15-25 ms searches of the
 * same text in one step. Both now go in steps; these check they find exactly what the one-step
 * forms find, and that they do pause.
 */
describe('the token scan in steps', () => {
  it('finds the same long values as the one-step scan for 3,000 fuzzed texts, at any step size', async () => {
    const r = seeded(20261203);
    for (let i = 0; i < 3000; i += 1) {
      const text = fuzzedText(r);
      const longValue = 1 + (i % 9);
      const want = longTokens(textSource(text), longValue);
      const got = await longTokensPaced(textSource(text), longValue, () => Promise.resolve(), 1 + (i % 5));
      assert.deepEqual(got, want, text.slice(0, 200));
    }
  });

  it('pauses within one long string of escaped quotes, and a paced parse of it is JSON.parse', async () => {
    const text = JSON.stringify({ result: { text: '\\"'.repeat(200_000) } });
    let pauses = 0;
    const long = await longTokensPaced(
      textSource(text),
      1000,
      async () => {
        pauses += 1;
      },
      50_000,
    );
    assert.equal(long?.length, 1);
    // 200,000 escaped quotes hopped: a pause every 50,000 hops.
    assert.ok(pauses >= 3, `${pauses} pauses`);
    let parsePauses = 0;
    const parsed = await pacedParse(text, async () => {
      parsePauses += 1;
    });
    assert.deepEqual(parsed, JSON.parse(text));
    assert.ok(parsePauses > pauses, 'the parse pauses in its token scan and in its windows');
  });
});

describe('RawResult.searchPaced: one pass for every needle, in steps', () => {
  const chop = (text: string, sizes: number[]): (string | Buffer)[] => {
    const parts: (string | Buffer)[] = [];
    for (let at = 0, k = 0; at < text.length; k += 1) {
      const n = sizes[k % sizes.length] as number;
      const piece = text.slice(at, at + n);
      parts.push(k % 2 === 0 ? piece : Buffer.from(piece));
      at += n;
    }
    return parts;
  };

  it('answers as partsInclude does, a needle across any seam, for 2,000 random texts', async () => {
    const r = seeded(7);
    const alphabet = 'ab"c:_\\';
    for (let i = 0; i < 2000; i += 1) {
      const text = Array.from({ length: 5 + Math.floor(r() * 60) }, () => alphabet[Math.floor(r() * alphabet.length)]).join('');
      const parts = chop(text, [1 + Math.floor(r() * 4), 1 + Math.floor(r() * 7)]);
      const needles = Array.from({ length: 4 }, () => text.slice(Math.floor(r() * text.length)).slice(0, 1 + Math.floor(r() * 5)));
      needles.push('"zz":');
      const raw = new RawResult(parts);
      await raw.searchPaced(needles, () => Promise.resolve());
      for (const n of needles) assert.equal(raw.includes(n), partsInclude(parts, n), `${JSON.stringify(text)} ${JSON.stringify(n)}`);
    }
  });

  it('pauses every SEARCH_STEP_CHARS, and what it found is then a lookup (mayHave included)', async () => {
    const piece = '\\"'.repeat(64 * 1024);
    const parts = Array.from({ length: 40 }, () => piece);
    parts.push('"resultType":"complete"}');
    const raw = new RawResult(parts);
    let pauses = 0;
    await raw.searchPaced(['"isError":true', '"resultType":'], async () => {
      pauses += 1;
    });
    assert.ok(pauses >= Math.floor((40 * piece.length) / SEARCH_STEP_CHARS) - 1, `${pauses} pauses`);
    assert.equal(raw.mayHave('resultType'), true);
    assert.equal(raw.includes('"isError":true'), false);
  });
});
