import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { LONG_VALUE_CHARS, WINDOW_CHARS } from '../../src/rpc/paced-json.js';
import { isLargeMessage, pacedStringify } from '../../src/rpc/paced-stringify.js';
import { seeded } from '../helpers/rng.js';
import { value } from '../helpers/json-fuzz.js';
import { LineReader } from '../../src/rpc/line-reader.js';
import { LineWriter, SLICE_CHARS } from '../../src/rpc/line-writer.js';
import { LinePeer } from '../../src/rpc/peer.js';
import { memoryLink } from '../../src/link/memory.js';

const counter = (): { pause: () => Promise<void>; steps: () => number } => {
  let n = 0;
  return {
    pause: () => {
      n += 1;
      return new Promise((r) => setImmediate(r));
    },
    steps: () => n,
  };
};

/** A long string with every kind of character JSON escapes, and surrogate pairs on window edges. */
const awkward = (chars: number, seed: number): string => {
  const bits = ['"', '\\', '\n', '\u0000', '\u001f', '😀', '\ud800', '\udfff', 'é', '\u2028', '</script>'];
  let s = '';
  let x = seed;
  while (s.length < chars) {
    x = (x * 1103515245 + 12345) % 2147483648;
    s += x % 50 === 0 ? (bits[x % bits.length] as string) : 'plain-'.repeat(1 + (x % 40));
  }
  // A pair straddling the first window edge.
  return `${'a'.repeat(WINDOW_CHARS - 1)}😀${s}`;
};

describe('pacedStringify: JSON.stringify in steps (issue 19)', () => {
  it('its parts joined are JSON.stringify exactly, escapes and surrogates included', async () => {
    for (let seed = 1; seed <= 6; seed += 1) {
      const msg = {
        jsonrpc: '2.0',
        id: seed,
        result: {
          content: [{ type: 'text', text: awkward(WINDOW_CHARS * 2, seed) }],
          more: [awkward(LONG_VALUE_CHARS, seed + 9)],
          small: 'x"y',
        },
      };
      const c = counter();
      const parts = await pacedStringify(msg, c.pause);
      assert.equal(parts.join(''), JSON.stringify(msg));
      assert.ok(c.steps() >= 3, `${c.steps()} steps`);
      assert.ok(parts.length > 3, 'the long strings are parts of their own, not joined');
    }
    assert.deepEqual(await pacedStringify({ a: 1 }, counter().pause), ['{"a":1}']);
    const top = 'q'.repeat(LONG_VALUE_CHARS * 3);
    assert.equal((await pacedStringify(top, counter().pause)).join(''), JSON.stringify(top));
  });

  it('escapes a lone surrogate in a window that holds nothing else JSON escapes', async () => {
    for (const lone of ['\ud800', '\udfff', 'x\udbffy']) {
      const msg = { t: `${'p'.repeat(WINDOW_CHARS / 2)}${lone}${'p'.repeat(WINDOW_CHARS)}` };
      assert.equal((await pacedStringify(msg, counter().pause)).join(''), JSON.stringify(msg), JSON.stringify(lone));
    }
  });

  it('never takes a string of the message for one of its placeholders', async () => {
    const msg = { a: '\u0000lanegate-long-out-000000000000000000000000-0', b: 'b'.repeat(LONG_VALUE_CHARS) };
    assert.equal((await pacedStringify(msg, counter().pause)).join(''), JSON.stringify(msg));
  });

  it('calls a message large for a long string or thousands of values, and small otherwise', () => {
    assert.equal(isLargeMessage({ result: { content: [{ text: 'x'.repeat(LONG_VALUE_CHARS) }] } }), true);
    assert.equal(isLargeMessage({ result: { content: [{ text: 'x'.repeat(LONG_VALUE_CHARS - 1) }] } }), false);
    assert.equal(isLargeMessage({ tools: Array.from({ length: 500 }, (_, i) => ({ name: `t${i}` })) }), false, 'a tools/list of 500 tools');
    // Attack round 39: an answer of 500,000 short strings has no long one; it is large by its count.
    assert.equal(isLargeMessage({ items: Array.from({ length: 5000 }, (_, i) => `v${i}`) }), true);
    const late = ['s', ...Array.from({ length: 300 }, () => 'short'), 'x'.repeat(LONG_VALUE_CHARS)];
    assert.equal(isLargeMessage({ a: late }), true, 'a long string past the first values');
  });

  it('sends a message nested past the probe depth in steps, as the same text', async () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100; i += 1) deep = { d: deep };
    assert.equal(isLargeMessage(deep), true, 'too deep to probe: the stepped path (its text is the same)');
    assert.equal(isLargeMessage({ d: { d: { d: 'leaf' } } }), false);
    assert.equal((await pacedStringify(deep, counter().pause)).join(''), JSON.stringify(deep));
  });

  it('writes a message of many small values in many steps, as JSON.stringify writes it (attack round 39)', async () => {
    const keyed: Record<string, unknown> = {};
    for (let i = 0; i < 60_000; i += 1) keyed[i % 2 ? `k${i}` : String(i)] = i % 3 ? `w"${i}` : [i, { d: '日' }, undefined, () => 1];
    Object.defineProperty(keyed, '__proto__', { value: 'own', enumerable: true, writable: true, configurable: true });
    const msg = {
      jsonrpc: '2.0',
      id: 3,
      result: {
        items: Array.from({ length: 200_000 }, (_, i) => (i % 9 ? `v${i}` : i)),
        keyed,
        skipped: undefined,
        when: new Date(0),
        text: 'x'.repeat(LONG_VALUE_CHARS * 2),
      },
    };
    const c = counter();
    const parts = await pacedStringify(msg, c.pause);
    assert.equal(parts.join(''), JSON.stringify(msg));
    // ~260,000 values at 8,192 units a step, and the long string's windows.
    assert.ok(c.steps() > 30, `${c.steps()} steps`);
    assert.ok(parts.length < 200, `${parts.length} parts: short pieces are gathered`);
  });

  it("lists a large object's keys once while it weighs and writes it (attack round 40: an object of 480,000 keys took ~150 ms each time)", async () => {
    const target: Record<string, unknown> = {};
    for (let i = 0; i < 20_000; i += 1) target[`k${i}`] = i;
    let listed = 0;
    const counted = new Proxy(target, {
      ownKeys: (t) => {
        listed += 1;
        return Reflect.ownKeys(t);
      },
    });
    const msg = { jsonrpc: '2.0', id: 1, params: { arguments: counted } };
    assert.equal(
      (await pacedStringify(msg, counter().pause)).join(''),
      JSON.stringify({ jsonrpc: '2.0', id: 1, params: { arguments: target } }),
    );
    assert.equal(listed, 1, `its keys were listed ${listed} times`);
  });

  it('writes 2,000 random values exactly as JSON.stringify does, with steps of a few units', async () => {
    const r = seeded(11);
    for (let i = 0; i < 2000; i += 1) {
      const v = Array.from({ length: 1 + (i % 12) }, () => value(r, 0));
      const parts = await pacedStringify(v, () => Promise.resolve(), { units: 1 + (i % 5), longValue: 6, window: 7 });
      assert.equal(parts.join(''), JSON.stringify(v));
    }
  });
});

describe('a LineWriter given parts or a line still being made', () => {
  const pipe = () => {
    const out = new PassThrough({ highWaterMark: 1024 });
    out.setEncoding('utf8');
    const seen = { wire: '' };
    out.on('data', (c: string) => {
      seen.wire += c;
    });
    return { out, seen };
  };
  const linesOf = (wire: string, sliced: boolean): string[] => {
    const lines: string[] = [];
    new LineReader({ maxBytes: 64 * 1024 * 1024, sliced, onLine: (l) => lines.push(l), onOversize: () => assert.fail('oversize') }).push(
      wire,
    );
    return lines;
  };
  const until = async (f: () => boolean): Promise<void> => {
    for (let i = 0; i < 5000 && !f(); i += 1) await new Promise((r) => setImmediate(r));
    assert.ok(f(), 'settled');
  };

  it('writes parts without joining them, a pair split across two parts intact', async () => {
    for (const sliced of [true, false]) {
      const { out, seen } = pipe();
      const w = new LineWriter(out, sliced);
      const head = `{"t":"${'h'.repeat(SLICE_CHARS - 7)}\ud83d`; // SLICE_CHARS long: the first piece ends in half a pair
      const tail = `\ude00${'t'.repeat(SLICE_CHARS)}"}`;
      w.write([head, tail], false);
      w.write('{"after":1}', false);
      await until(() => seen.wire.endsWith('{"after":1}\n'));
      assert.deepEqual(linesOf(seen.wire, sliced), [head + tail, '{"after":1}']);
    }
  });

  it('a request still being made holds the lines written after it; a response still being made lets them pass', async () => {
    for (const sliced of [true, false]) {
      const { out, seen } = pipe();
      const w = new LineWriter(out, sliced);
      let finish: (p: string[]) => void = () => undefined;
      const request = `{"id":1,"method":"m","params":{"t":"${'r'.repeat(SLICE_CHARS * 2)}"}}`;
      w.write(
        new Promise<string[]>((r) => {
          finish = r;
        }),
        false,
      );
      w.write('{"id":2,"method":"ping"}', false);
      for (let i = 0; i < 20; i += 1) await new Promise((r) => setImmediate(r));
      assert.equal(seen.wire, '', 'nothing overtakes a request still being serialised');
      finish([request.slice(0, 10), request.slice(10)]);
      await until(() => seen.wire.endsWith('{"id":2,"method":"ping"}\n'));
      assert.deepEqual(linesOf(seen.wire, sliced), [request, '{"id":2,"method":"ping"}']);
    }
    const { out, seen } = pipe();
    const w = new LineWriter(out, true);
    let finish: (p: string[]) => void = () => undefined;
    w.write(
      new Promise<string[]>((r) => {
        finish = r;
      }),
      true,
    );
    w.write('{"id":3,"result":{}}', true);
    await until(() => seen.wire.includes('{"id":3,"result":{}}'));
    const answer = `{"id":4,"result":{"t":"${'a'.repeat(SLICE_CHARS * 2)}"}}`;
    finish([answer]);
    await until(() => linesOf(seen.wire, true).length === 2);
    assert.deepEqual(linesOf(seen.wire, true), ['{"id":3,"result":{}}', answer]);
  });

  it('end to end: a peer answers with a long awkward string; the other end reads exactly it', async () => {
    const { front, host } = memoryLink();
    const text = awkward(WINDOW_CHARS * 3, 42);
    new LinePeer(host.input, host.output, { onRequest: () => ({ content: [{ type: 'text', text }] }) }, { sliced: true });
    const peer = new LinePeer(front.input, front.output, {}, { sliced: true });
    const r = (await peer.request('get', {}, 10_000)) as { content: { text: string }[] };
    assert.equal(r.content[0]?.text, text);
    const raw = await peer.requestRaw('get', {}, 10_000);
    assert.equal((raw.parsed().content as { text: string }[])[0]?.text, text);
    peer.close('done');
  });
});
