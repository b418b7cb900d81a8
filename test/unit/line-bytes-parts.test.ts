import assert from 'node:assert/strict';
import { isUtf8 } from 'node:buffer';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { LineReader } from '../../src/rpc/line-reader.js';
import { LineWriter, SLICE_CHARS } from '../../src/rpc/line-writer.js';
import { joinWire, type WireParts } from '../../src/rpc/parts.js';
import { seeded } from '../helpers/rng.js';

/** What a sliced LineWriter writes for these lines (responses, so long ones go in slices), as bytes. */
const written = async (lines: string[]): Promise<Buffer> => {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  const w = new LineWriter(out, true);
  for (const l of lines) w.write(l, true);
  for (let i = 0; i < 10_000 && w.queued > 0; i += 1) await new Promise((r) => setImmediate(r));
  assert.equal(w.queued, 0, 'the writer wrote everything');
  return Buffer.concat(chunks);
};

/** The lines a reader hands on, each with its parts when it came as parts. */
const read = (bytes: Buffer, bytesParts: boolean, r: () => number): { text: string; parts?: WireParts }[] => {
  const got: { text: string; parts?: WireParts }[] = [];
  const reader = new LineReader({
    maxBytes: 64 * 1024 * 1024,
    sliced: true,
    bytesParts,
    onLine: (text) => got.push({ text }),
    onParts: (parts) => got.push({ text: joinWire(parts), parts }),
    onOversize: () => assert.fail('nothing here is over the bound'),
  });
  for (let at = 0; at < bytes.length; ) {
    const n = 1 + Math.floor(r() * 70_000);
    reader.push(bytes.subarray(at, at + n));
    at += n;
  }
  return got;
};

describe("a link's long lines read as bytes in the middle (the front's side, issue 19)", () => {
  it('hands on the same lines as the text reader, its ends text and its middle whole-character bytes, however the reads are cut', async () => {
    const r = seeded(19);
    const kinds = ['z', 'é', '😀', '界', '\\"', '\\u00e9'];
    const lines = Array.from({ length: 12 }, (_, i) => {
      const unit = kinds[i % kinds.length] as string;
      const body = Array.from({ length: Math.floor((SLICE_CHARS * (2 + r() * 8)) / unit.length) }, (_, k) =>
        k % 97 === 0 ? 'a' : unit,
      ).join('');
      return JSON.stringify({ jsonrpc: '2.0', id: i, result: { t: body } });
    });
    lines.splice(5, 0, '{"jsonrpc":"2.0","id":99,"result":{}}');
    const bytes = await written(lines);
    for (let round = 0; round < 3; round += 1) {
      const asText = read(bytes, false, r);
      const asBytes = read(bytes, true, r);
      assert.deepEqual(
        asBytes.map((x) => x.text),
        asText.map((x) => x.text),
        'the same lines, whole',
      );
      assert.deepEqual(asText.map((x) => x.text).sort(), [...lines].sort(), 'every line written is read');
      let middles = 0;
      for (const { parts } of asBytes) {
        if (!parts) continue;
        assert.equal(typeof parts[0], 'string', 'a long line starts as text');
        assert.equal(typeof parts[parts.length - 1], 'string', 'and ends as text');
        assert.equal(typeof parts[parts.length - 2], 'string', 'the slice before its last too');
        for (const p of parts) {
          if (typeof p === 'string') continue;
          middles += 1;
          assert.ok(isUtf8(p), 'a bytes part holds whole characters');
        }
      }
      assert.ok(middles > 20, `${middles} middle parts as bytes`);
    }
  });

  it('reads a frame whose head arrives a few bytes at a time', async () => {
    const lines = [0, 1].map((i) => JSON.stringify({ jsonrpc: '2.0', id: i, result: { t: 'é'.repeat(SLICE_CHARS * 3) } }));
    const bytes = await written(lines);
    const got: string[] = [];
    const reader = new LineReader({
      maxBytes: 64 * 1024 * 1024,
      sliced: true,
      bytesParts: true,
      onLine: (text) => got.push(text),
      onParts: (parts) => got.push(joinWire(parts)),
      onOversize: () => assert.fail('nothing here is over the bound'),
    });
    // Every frame's head (its first 232 bytes) arrives a byte a read; the rest in large reads.
    for (let at = 0; at < bytes.length; ) {
      const head = bytes.lastIndexOf(0x1e, at);
      const next = bytes.indexOf(0x1e, at);
      const inHead = head >= 0 && at - head < 232;
      const n = inHead ? 1 : next > at ? next - at : 65_536;
      reader.push(bytes.subarray(at, at + n));
      at += n;
    }
    assert.deepEqual(got, lines);
  });
});
