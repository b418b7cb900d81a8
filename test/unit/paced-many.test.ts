import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { drive } from '../../src/rpc/steps.js';
import { manySteps } from '../../src/rpc/paced-many.js';
import { pacedParse } from '../../src/rpc/paced-json.js';
import { seeded } from '../helpers/rng.js';
import { fuzzedText, value } from '../helpers/json-fuzz.js';

/** Cuts of a few characters: every member, key, colon, comma and escape lands on a cut somewhere. */
const TINY = { batch: 3, large: 9, window: 7 };

type Outcome = { ok: true; text: string; v: unknown } | { ok: false; e: string };

/** A value's outcome, compared as text (member order, an own __proto__) and as a value. */
const outcome = (f: () => unknown): Outcome => {
  try {
    const v = f();
    return { ok: true, text: JSON.stringify(v), v };
  } catch (e) {
    return { ok: false, e: (e as Error).name };
  }
};

/** manySteps run to its end synchronously, counting its steps. */
const stepped = (text: string, sizes = TINY): { v: unknown; steps: number } => {
  const g = manySteps(text, sizes);
  let steps = 0;
  for (;;) {
    const r = g.next();
    if (r.done) return { v: r.value, steps };
    steps += 1;
  }
};

describe('manySteps: JSON.parse of many values, cut where JSON allows (issue 19)', () => {
  it('agrees with JSON.parse on 4,000 fuzzed texts (valid, pretty, mutated): the same value in the same order, or an error', () => {
    const r = seeded(20261203);
    let valid = 0;
    let invalid = 0;
    let cut = 0;
    for (let i = 0; i < 4000; i += 1) {
      const text = fuzzedText(r);
      const want = outcome(() => JSON.parse(text));
      let steps = 0;
      const got = outcome(() => {
        const s = stepped(text);
        steps = s.steps;
        return s.v;
      });
      if (want.ok) valid += 1;
      else invalid += 1;
      if (want.ok && steps > 0) cut += 1;
      assert.equal(got.ok, want.ok, `text ${JSON.stringify(text)}`);
      if (got.ok && want.ok) {
        assert.equal(got.text, want.text, `text ${JSON.stringify(text)}`);
        assert.deepEqual(got.v, want.v);
      }
    }
    assert.ok(valid > 1500 && invalid > 500, `${valid} valid, ${invalid} invalid texts`);
    assert.ok(cut > valid / 4, `${cut} of ${valid} valid texts parsed in more than one step`);
  });

  it('keeps what JSON.parse keeps: a repeated key’s first place and last value, __proto__ as an own member, -0, exponents, escapes in keys', () => {
    const texts = [
      '{"a":1,"b":[1,2,3,4,5,6,7,8],"a":{"x":"yyyyyyyyyyyy"},"c":3}',
      '{"__proto__":{"polluted":true},"k":[{"__proto__":1},"zzzzzzzzzzzz"]}',
      ' [ -0 , 1e-7 , 2E+30 , 0.5 , true , false , null , "\\u00e9\\ud83d\\ude00\\"" ] ',
      '{"k\\"ey\\n":"vvvvvvvvvvvvvvv","2":"b","1":"a","":[[],{}]}',
      '[[[[[["deep"]]]]],{"a":{"b":{"c":{"d":"eeeeeeeeeeeeeeeeeeeeee"}}}}]',
      '{}',
      '[]',
      '[ ]',
      '"just a string that is long"',
      '12345',
    ];
    for (const text of texts) {
      const got = stepped(text).v;
      assert.equal(JSON.stringify(got), JSON.stringify(JSON.parse(text)), text);
      assert.deepEqual(got, JSON.parse(text), text);
    }
    const proto = stepped(texts[1] as string).v as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(proto), Object.prototype, 'no prototype was set');
    assert.ok(Object.hasOwn(proto, '__proto__'));
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('refuses what JSON.parse refuses, at every cut: trailing commas, missing commas, a wrong bracket, text after the value', () => {
    const bad = [
      '[1,2,3,]',
      '[1,,2]',
      '[,1]',
      '{"a":1,}',
      '{"a" 1}',
      '{"a":1 "b":2}',
      '[1 2]',
      '["aaaaaaaaaaaa"}',
      '{"a":["bbbbbbbbbbbbbbbbb"]]',
      '[1] x',
      '[1][2]',
      '{"a":"unterminated',
      '["raw\u0001control-in-a-long-string"]',
      '{"k":tru}',
      '[01]',
    ];
    for (const text of bad) {
      assert.throws(() => JSON.parse(text), SyntaxError, `JSON.parse accepts ${text}`);
      assert.throws(() => stepped(text), Error, `manySteps accepts ${text}`);
    }
  });

  it('a large text of many values is parsed in many steps by pacedParse (it was one JSON.parse past 50,000 tokens)', async () => {
    const v = {
      result: {
        content: [{ type: 'text', text: 'x'.repeat(300_000) }],
        structuredContent: { items: Array.from({ length: 120_000 }, (_, i) => `v${i}`), n: Array.from({ length: 30_000 }, (_, i) => i) },
      },
    };
    const text = JSON.stringify(v);
    let pauses = 0;
    const got = await pacedParse(text, async () => {
      pauses += 1;
    });
    assert.equal(JSON.stringify(got), text);
    // ~1.5 MB of members in batches of 32 KiB, and the long text in windows: dozens of steps.
    assert.ok(pauses > 40, `${pauses} steps`);
  });

  it('random values of many members at small cuts come back exact (the path a host takes for a large answer)', async () => {
    const r = seeded(5);
    for (let i = 0; i < 200; i += 1) {
      const v = Array.from({ length: 30 }, () => value(r, 1));
      const text = JSON.stringify(v);
      assert.equal(JSON.stringify(await drive(manySteps(text, TINY), async () => undefined)), text);
    }
  });
});
