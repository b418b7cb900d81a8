import assert from 'node:assert/strict';
import { isUtf8 } from 'node:buffer';
import { describe, it } from 'node:test';
import { openLargeBody } from '../../src/front/transport/large-body.js';
import { hasControlByte, safeByteCut } from '../../src/rpc/json-bytes.js';
import { longTokens } from '../../src/rpc/json-tokens.js';
import { alignUtf8, ByteChunks } from '../../src/rpc/byte-chunks.js';
import { fillPlaceholders } from '../../src/rpc/placeholders.js';
import { joinWire } from '../../src/rpc/parts.js';
import { fuzzedText } from '../helpers/json-fuzz.js';
import { seeded } from '../helpers/rng.js';

/** Tiny windows: every escape, multi-byte character and token edge lands on a window edge somewhere. */
const SIZES = { longValue: 6, window: 9, step: 9 };
const now = (): Promise<void> => Promise.resolve();

/** Bytes cut into chunks of 1 to 12 bytes, as a socket might deliver them: characters and escapes cut anywhere. */
const chunked = (bytes: Buffer, r: () => number): Buffer[] => {
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; ) {
    const n = 1 + Math.floor(r() * 12);
    out.push(bytes.subarray(i, i + n));
    i += n;
  }
  return out;
};

/** One chunk (tests that are not about chunks). */
const one = (text: string): Buffer[] => [Buffer.from(text)];

/** What the front makes of a body's bytes: opened on its bytes when it can be, else undefined. */
const parsedVia = async (
  chunks: Buffer[],
): Promise<{
  opened: boolean;
  v?: unknown;
  threw?: boolean;
  joined?: string;
}> => {
  const o = await openLargeBody(chunks, now, SIZES);
  if (!o) return { opened: false };
  try {
    return {
      opened: true,
      v: fillPlaceholders(JSON.parse(o.skeleton), o.valueOf, true),
      joined: joinWire(o.parts),
    };
  } catch {
    return { opened: true, threw: true, joined: joinWire(o.parts) };
  }
};

describe('a large body opened on its bytes (issue 19)', () => {
  it('agrees with JSON.parse of the decoded text on 4,000 fuzzed bodies, valid and mutated', async () => {
    const r = seeded(20261202);
    let opened = 0;
    let openedValid = 0;
    let refusedInvalid = 0;
    for (let i = 0; i < 4000; i += 1) {
      const bytes = Buffer.from(fuzzedText(r));
      const text = bytes.toString('utf8');
      let want: { ok: true; v: unknown } | { ok: false };
      try {
        want = { ok: true, v: JSON.parse(text) };
      } catch {
        want = { ok: false };
      }
      const got = await parsedVia(r() < 0.5 ? [bytes] : chunked(bytes, r));
      if (!got.opened) continue;
      opened += 1;
      assert.equal(got.joined, text, `the parts are the text as sent: ${JSON.stringify(text)}`);
      if (want.ok) {
        openedValid += 1;
        assert.ok(!got.threw, `a valid body's skeleton parses: ${JSON.stringify(text)}`);
        assert.deepEqual(got.v, want.v, `text ${JSON.stringify(text)}`);
        assert.equal(JSON.stringify(got.v), JSON.stringify(want.v));
      } else {
        assert.ok(got.threw, `an invalid body never yields a value: ${JSON.stringify(text)}`);
        refusedInvalid += 1;
      }
    }
    assert.ok(openedValid > 500 && refusedInvalid > 50, `${opened} opened: ${openedValid} valid, ${refusedInvalid} invalid`);
  });

  it('finds long values by their quotes, not by escaped quotes or keys, across chunks', () => {
    const text = '{"k":"ab\\"cdefgh","xxxxxxxxxx":1,"s":"\\\\","t":"é界😀é界"}';
    const whole = Buffer.from(text);
    const b = new ByteChunks(alignUtf8(chunked(whole, seeded(3))));
    const found = longTokens(b, 6) ?? [];
    const values = found.map((t) => b.bytes(t.open + 1, t.close).toString('utf8'));
    assert.deepEqual(values, ['ab\\"cdefgh', 'é界😀é界']);
    assert.equal(longTokens(new ByteChunks(one('{"a":"unclosed')), 1), undefined, 'an unclosed string');
    assert.equal(longTokens(new ByteChunks(one('{"a":"short"}')), 6), undefined, 'nothing long');
  });

  it('moves a character cut between two chunks whole into the second', () => {
    const text = 'a😀b界cé';
    const whole = Buffer.from(text);
    for (let seed = 1; seed <= 200; seed += 1) {
      const aligned = alignUtf8(chunked(whole, seeded(seed)));
      assert.equal(Buffer.concat(aligned).toString('utf8'), text);
      for (const c of aligned) assert.ok(c.length > 0 && isUtf8(c), `seed ${seed}: a chunk ${c.toString('hex')} cuts a character`);
      const b = new ByteChunks(aligned);
      assert.equal(b.length, whole.length);
      for (let i = 0; i < whole.length; i += 1) assert.equal(b.at(i), whole[i]);
      assert.equal(b.indexOf(0x63), whole.indexOf(0x63));
      assert.equal(b.indexOf(0x63, whole.indexOf(0x63) + 1), -1);
      assert.equal(Buffer.concat(b.slices(2, 9)).toString('hex'), whole.subarray(2, 9).toString('hex'));
    }
  });

  it('finds a control byte as a byte loop does, at every offset and alignment', () => {
    const r = seeded(5);
    const base = Buffer.alloc(64, 'z');
    for (let i = 0; i < 3000; i += 1) {
      const b = Buffer.from(base);
      for (let k = Math.floor(r() * 3); k > 0; k -= 1) b[Math.floor(r() * b.length)] = Math.floor(r() * 256);
      const a = Math.floor(r() * 8);
      const view = b.subarray(a, a + Math.floor(r() * (b.length - a)));
      assert.equal(
        hasControlByte(view),
        view.some((x) => x < 0x20),
        `bytes ${view.toString('hex')}`,
      );
    }
    for (const x of [0x00, 0x1f, 0x20, 0x7f, 0x80, 0x9f, 0xa0, 0xff]) {
      for (let at = 0; at < 9; at += 1) {
        const b = Buffer.alloc(9, 'a');
        b[at] = x;
        assert.equal(hasControlByte(b), x < 0x20, `byte ${x} at ${at}`);
      }
    }
  });

  it('never cuts inside a UTF-8 character or an escape', () => {
    const b = new ByteChunks(one('ab😀\\u00e9\\"x'));
    // 'ab' then 4 bytes of 😀 (2..5), then \u00e9 (6..11), then \" (12..13).
    assert.equal(safeByteCut(b, 0, 4), 2, 'back to the emoji lead byte');
    assert.equal(safeByteCut(b, 0, 6), 6, 'after the emoji');
    assert.equal(safeByteCut(b, 0, 9), 6, 'not inside \\u00e9');
    assert.equal(safeByteCut(b, 0, 13), 12, 'not inside \\"');
    assert.equal(safeByteCut(b, 0, 12), 12, 'between two escapes');
  });

  it('leaves bodies that are not UTF-8, or have no long value, to the whole-text path', async () => {
    const bad = Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xff, 0xfe]), Buffer.from('xxxxxxxx"}')]);
    assert.equal(await openLargeBody([bad], now, SIZES), undefined);
    assert.equal(await openLargeBody(one('{"a":[1,2,3]}'), now, SIZES), undefined);
  });

  it('decodes a long value only when it is read, once, and not when it is replaced first', async () => {
    const text = JSON.stringify({
      params: {
        arguments: { a: 'x'.repeat(40), b: 'y\\n'.repeat(20) },
        name: 'n',
      },
    });
    const o = await openLargeBody(one(text), now, SIZES);
    assert.ok(o, 'opened');
    let decoded = 0;
    const body = fillPlaceholders(
      JSON.parse(o.skeleton),
      (i) => {
        decoded += 1;
        return o.valueOf(i);
      },
      true,
    ) as {
      params: { arguments: Record<string, string>; name: string };
    };
    assert.equal(body.params.name, 'n');
    assert.equal(decoded, 0, 'nothing decoded before a value is read');
    assert.equal(body.params.arguments.a, 'x'.repeat(40));
    assert.equal(body.params.arguments.a, 'x'.repeat(40));
    assert.equal(decoded, 1, 'read twice, decoded once');
    body.params.arguments.b = 'replaced';
    assert.equal(body.params.arguments.b, 'replaced');
    assert.equal(decoded, 1, 'a replaced value is never decoded');
    assert.equal(
      JSON.stringify(body),
      JSON.stringify({
        params: { arguments: { a: 'x'.repeat(40), b: 'replaced' }, name: 'n' },
      }),
    );
  });

  it('takes a 3.9 MB body in steps, its parts no longer than a window', async () => {
    const text = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'e', arguments: { text: 'z'.repeat(3_900_000) } },
    });
    let steps = 0;
    // In the 64 KiB chunks a socket delivers: the value's parts are views of them, nothing copied.
    const source = Buffer.from(text);
    const chunks = Array.from({ length: Math.ceil(source.length / 65_536) }, (_, i) => source.subarray(i * 65_536, (i + 1) * 65_536));
    const o = await openLargeBody(chunks, async () => {
      steps += 1;
    });
    assert.ok(o, 'opened');
    // A step is three windows (360 KiB, the first past LARGE_BODY_SIZES.step): ~11 for 3.9 MB.
    assert.ok(steps >= 10, `${steps} steps for 3.9 MB`);
    assert.ok(o.parts.every((p) => p.length <= 120 * 1024));
    const bytes = o.parts.filter((p) => typeof p !== 'string');
    assert.ok(bytes.length >= 59, `${bytes.length} views of the chunks`);
    assert.ok(
      bytes.every((p) => p.buffer === source.buffer),
      'the value goes on as views of the bytes that arrived, never a copy',
    );
    assert.ok(o.skeleton.length < 300, `skeleton of ${o.skeleton.length} characters`);
    assert.equal(joinWire(o.parts), text);
  });
});
