import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { byteLengthOf, dropFirst, dropLast, lastChars, partsInclude, trimParts } from '../../src/rpc/parts-text.js';
import { RawResult, rawResultLine, rawResultParts } from '../../src/rpc/raw.js';
import { splitRawVia, splitVia, withVia } from '../../src/link/via.js';
import { modernResultText } from '../../src/front/transport/modern-result.js';

/** A seeded generator: the same cases every run, many cut points. */
const rng = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};

/** `text` cut at random places into parts (some of them empty). */
const cut = (text: string, r: () => number, pieces: number): string[] => {
  const at = Array.from({ length: pieces - 1 }, () => Math.floor(r() * (text.length + 1))).sort((a, b) => a - b);
  const out: string[] = [];
  let prev = 0;
  for (const a of [...at, text.length]) {
    out.push(text.slice(prev, a));
    prev = a;
  }
  return out;
};

const ALPHABET = ['a', 'b', '"', ':', ' ', '\n', '}', '{', 'é', '界', 'x'];

describe('a text held as parts reads as the joined text would, without being joined', () => {
  it('search, the last characters, cutting either end, trimming and the byte count agree with the joined text', () => {
    const r = rng(7);
    for (let n = 0; n < 400; n += 1) {
      const len = Math.floor(r() * 60);
      const text = Array.from({ length: len }, () => ALPHABET[Math.floor(r() * ALPHABET.length)]).join('');
      const parts = cut(text, r, 1 + Math.floor(r() * 6));
      assert.equal(parts.join(''), text);
      for (const needle of ['"a":', 'b}', '}}', 'é界', ' \n', 'zz', text.slice(3, 9)])
        assert.equal(partsInclude(parts, needle), text.includes(needle), `${JSON.stringify(parts)} ${needle}`);
      const k = Math.floor(r() * (len + 2));
      assert.equal(lastChars(parts, k), text.slice(Math.max(0, text.length - k)));
      assert.equal(dropLast(parts, k).join(''), text.slice(0, Math.max(0, text.length - k)));
      assert.equal(dropFirst(parts, k).join(''), text.slice(k));
      const clean = parts.filter((p) => p !== '');
      assert.ok(!dropLast(clean, k).includes('') && !dropFirst(clean, k).includes(''), 'a cut leaves no empty part');
      assert.equal(trimParts(parts).join(''), text.replace(/^[ \t\n\r]+|[ \t\n\r]+$/g, ''));
      assert.equal(byteLengthOf(parts), Buffer.byteLength(text));
    }
  });

  it('a response line as parts gives the id and the result text rawResultLine gives, and refuses what it refuses', () => {
    const r = rng(11);
    const result = { content: [{ type: 'text', text: `${'y'.repeat(3000)} "quoted" }}` }], isError: false };
    const line = JSON.stringify({ jsonrpc: '2.0', id: 4242, result });
    for (let n = 0; n < 100; n += 1) {
      // The head is whole in the first part, as a link's 256 KiB slices always have it.
      const head = 60 + Math.floor(r() * 100);
      const got = rawResultParts([line.slice(0, head), ...cut(line.slice(head), r, 4)]);
      assert.equal(got?.id, 4242);
      assert.equal(got?.parts.join(''), rawResultLine(line)?.text);
    }
    for (const bad of [
      JSON.stringify({ jsonrpc: '2.0', id: 'a', result }),
      JSON.stringify({ jsonrpc: '2.0', id: 3, error: { code: 1, message: 'x'.repeat(300) } }),
      `${JSON.stringify({ jsonrpc: '2.0', id: 3, result }).slice(0, -1)}`,
    ])
      assert.equal(rawResultParts([bad.slice(0, 200), bad.slice(200)]), undefined, bad.slice(0, 80));
    // A short first part (a head that could span parts): read as one string, the same answer.
    assert.deepEqual(rawResultParts([line.slice(0, 10), line.slice(10)]), { id: 4242, parts: [rawResultLine(line)?.text] });
  });

  it("the host's via tail comes off a result held as parts as it comes off the joined text, and nothing else does", () => {
    const r = rng(5);
    const cases = [
      withVia({ content: [{ type: 'text', text: 'z'.repeat(2000) }] }, { placement: 'shared', pid: 123 }),
      withVia({ content: [{ type: 'text', text: 'z'.repeat(2000) }], isError: true }, { placement: 'dedicated' }),
      { content: [{ type: 'text', text: `${'z'.repeat(2000)}"lanegate/via":{"placement":"shared"}` }] },
    ];
    for (const c of [...cases, withVia({}, { placement: 'shared' })]) {
      const text = JSON.stringify(c);
      const whole = splitVia(text);
      // One part (every small result) takes the same path as many.
      const one = splitRawVia(new RawResult(text));
      assert.equal(one.raw.parts.join(''), whole.text);
      assert.deepEqual(one.via, whole.via);
      for (let n = 0; n < 50; n += 1) {
        const got = splitRawVia(new RawResult(cut(text, r, 2 + Math.floor(r() * 5)).filter((p) => p !== '')));
        assert.equal(got.raw.parts.join(''), whole.text);
        assert.deepEqual(got.via, whole.via);
      }
    }
  });

  it('a 2026-07-28 result is spliced around a result held as parts exactly as around the joined text', () => {
    const r = rng(3);
    const serverInfo = { name: 's', version: '1' };
    for (const obj of [{ content: [{ type: 'text', text: 'w'.repeat(5000) }] }, {}, { a: 1 }]) {
      const text = JSON.stringify(obj);
      const whole = modernResultText('tools/call', new RawResult(text), serverInfo)?.join('');
      assert.ok(whole !== undefined);
      assert.deepEqual(JSON.parse(whole), { resultType: 'complete', ...obj, _meta: { 'io.modelcontextprotocol/serverInfo': serverInfo } });
      for (let n = 0; n < 30; n += 1) {
        const parts = cut(text, r, 2 + Math.floor(r() * 4)).filter((p) => p !== '');
        assert.equal(modernResultText('tools/call', new RawResult(parts), serverInfo)?.join(''), whole);
      }
    }
    // A result holding a key the front adds is left to the parse, in parts as whole (found across a seam too).
    const meta = JSON.stringify({ content: [], _meta: { x: 1 } });
    const seam = meta.indexOf('"_meta":') + 3;
    assert.equal(modernResultText('tools/call', new RawResult([meta.slice(0, seam), meta.slice(seam)]), serverInfo), undefined);
  });
});
