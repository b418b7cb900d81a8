import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LONG_VALUE_CHARS, longValues, pacedParse, WINDOW_CHARS } from '../../src/rpc/paced-json.js';
import { safeCut } from '../../src/rpc/long-value.js';

/** A pause that counts its steps. */
const counter = (): { pause: () => Promise<void>; steps: () => number } => {
  let n = 0;
  return {
    pause: () => {
      n += 1;
      return Promise.resolve();
    },
    steps: () => n,
  };
};

/** A deterministic generator (the same texts every run). */
const rng = (seed: number): (() => number) => {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
};

/** A long string value with escapes of every kind scattered, some of them across window edges. */
const longWithEscapes = (chars: number, r: () => number): string => {
  const pieces = ['\\', '"', '\n', '\u0001', 'é', '😀', '\ud800', '\u2028', '/', 'plain text '];
  let s = '';
  while (s.length < chars) {
    const k = Math.floor(r() * pieces.length);
    s += r() < 0.02 ? (pieces[k] as string) : 'abcdefghij'.repeat(1 + Math.floor(r() * 50));
  }
  return s;
};

/** As `same`, and the value was decoded in steps (not the whole-text fallback, which takes one). */
const sameInSteps = async (text: string, atLeast: number): Promise<void> => {
  const c = counter();
  assert.deepEqual(await pacedParse(text, c.pause), JSON.parse(text));
  assert.ok(c.steps() >= atLeast, `${c.steps()} steps, expected at least ${atLeast}: the fallback ran`);
};

const same = async (text: string): Promise<void> => {
  let expected: unknown;
  let threw: unknown;
  try {
    expected = JSON.parse(text);
  } catch (e) {
    threw = e;
  }
  if (threw) {
    await assert.rejects(pacedParse(text, counter().pause), SyntaxError);
    return;
  }
  assert.deepEqual(await pacedParse(text, counter().pause), expected);
};

describe('pacedParse: JSON.parse in steps (issue 19)', () => {
  it('gives JSON.parse its exact value: long values with every escape, at and across window edges', async () => {
    const r = rng(7);
    for (let round = 0; round < 12; round += 1) {
      const a = longWithEscapes(WINDOW_CHARS * 2 + Math.floor(r() * 1000), r);
      const b = longWithEscapes(LONG_VALUE_CHARS + 10, r);
      const msg = {
        jsonrpc: '2.0',
        id: round,
        result: {
          content: [
            { type: 'text', text: a },
            { type: 'text', text: b },
          ],
          short: 'x"y',
        },
      };
      await sameInSteps(JSON.stringify(msg), 3);
      await sameInSteps(JSON.stringify(msg, null, round % 3), 3);
    }
  });

  it('puts escapes exactly on each window edge', async () => {
    for (const esc of ['\\\\', '\\"', '\\u00e9', '\\ud83d\\ude00', '\\n']) {
      for (let shift = 0; shift < 8; shift += 1) {
        const pad = 'q'.repeat(WINDOW_CHARS - shift);
        const text = `{"t":"${pad}${esc}${'w'.repeat(WINDOW_CHARS)}${esc}"}`;
        await sameInSteps(text, 3);
      }
    }
  });

  it('keeps a long value without escapes as a slice, in steps, and leaves long keys alone', async () => {
    const v = 'z'.repeat(3_900_000);
    const c = counter();
    const text = JSON.stringify({ id: 1, params: { arguments: { text: v } } });
    const got = (await pacedParse(text, c.pause)) as { params: { arguments: { text: string } } };
    assert.equal(got.params.arguments.text, v);
    assert.ok(c.steps() >= Math.floor(v.length / WINDOW_CHARS), `${c.steps()} steps for 3.9 MB`);
    const keyed = JSON.stringify({ ['k'.repeat(LONG_VALUE_CHARS * 5)]: 1, v: 'y'.repeat(LONG_VALUE_CHARS * 5) });
    assert.equal(longValues(keyed)?.length, 1, 'the long key is not a value');
    await same(keyed);
    await same(JSON.stringify('s'.repeat(LONG_VALUE_CHARS * 5)));
    await same(JSON.stringify(['a'.repeat(LONG_VALUE_CHARS * 5), { __proto__x: 1 }, 'b'.repeat(LONG_VALUE_CHARS * 5)]));
  });

  it('makes a long value under "__proto__" an own property, as JSON.parse does', async () => {
    const text = `{"__proto__":"${'p'.repeat(LONG_VALUE_CHARS * 5)}","a":1}`;
    const got = (await pacedParse(text, counter().pause)) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(got), Object.prototype);
    assert.ok(Object.hasOwn(got, '__proto__'));
    assert.equal(String(Object.getOwnPropertyDescriptor(got, '__proto__')?.value).length, LONG_VALUE_CHARS * 5);
  });

  it('throws what JSON.parse throws on bad text: a raw control character, a broken escape, a cut-off text', async () => {
    const long = 'x'.repeat(WINDOW_CHARS * 2);
    for (const bad of [
      `{"t":"${long}\u0001${long}"}`,
      `{"t":"${long}\n${long}"}`,
      `{"t":"${long}\\q${long}"}`,
      `{"t":"${long}\\u12${long}"}`,
      `{"t":"${long}"`,
      `{"t":"${long}`,
      `{"t":"${long}",}`,
      `{"t":"${long}" "u":1}`,
      `["${long}", 01]`,
    ]) {
      assert.throws(() => JSON.parse(bad), SyntaxError);
      await assert.rejects(pacedParse(bad, counter().pause), SyntaxError);
    }
  });

  it('never takes a peer string for one of its placeholders', async () => {
    const text = JSON.stringify({ a: '\u0000lanegate-long-000000000000000000000000-0', b: 'c'.repeat(LONG_VALUE_CHARS * 5) });
    await same(text);
  });

  it('parses a text of many small strings whole (not worth the steps), and a short text at once', async () => {
    const many = JSON.stringify(Array.from({ length: 60_000 }, (_, i) => `s${i}`));
    assert.equal(longValues(many), undefined);
    await same(many);
    const c = counter();
    assert.deepEqual(await pacedParse('{"a":1}', c.pause), { a: 1 });
    assert.equal(c.steps(), 0);
  });

  it('cuts a window only between escapes', () => {
    const t = 'ab\\u00e9cd';
    assert.equal(safeCut(t, 0, 5), 2, 'inside \\u00e9: before it');
    assert.equal(safeCut(t, 0, 8), 8, 'after it');
    assert.equal(safeCut('a\\\\b', 0, 3), 3, 'after an escaped backslash');
    assert.equal(safeCut('a\\"b', 0, 2), 1, 'between \\ and "');
  });
});
