import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXTERNAL_FROM, joinBytes, joinText, MAX_SCRATCH, scratchBytes } from '../../src/rpc/scratch.js';
import { LineReader } from '../../src/rpc/line-reader.js';

/** `b` cut into pieces of `size` bytes (characters cut between pieces). */
const pieces = (b: Buffer, size: number): Buffer[] => {
  const out: Buffer[] = [];
  for (let i = 0; i < b.length; i += size) out.push(b.subarray(i, i + size));
  return out;
};

describe("a line's byte pieces are laid out in one resident scratch before it is decoded", () => {
  it('lays the pieces out exactly, reusing the same memory for the next line, and decodes to the text', () => {
    const text = `${'ab😀界é'.repeat(50_000)}`;
    const bytes = Buffer.from(text);
    const first = joinBytes(pieces(bytes, 65_536), bytes.length);
    assert.ok(first.equals(bytes));
    assert.equal(first.toString('utf8'), text);
    const size = scratchBytes();
    assert.ok(size >= bytes.length && size <= MAX_SCRATCH);
    const other = Buffer.from('x'.repeat(200_000));
    const second = joinBytes(pieces(other, 7_777), other.length);
    assert.ok(second.equals(other));
    assert.equal(second.buffer, first.buffer, 'the same memory serves the next line');
    assert.equal(scratchBytes(), size, 'a shorter line does not grow it');
    // `n` shorter than the pieces: only n bytes are laid out.
    assert.equal(joinBytes([Buffer.from('abc'), Buffer.from('def')], 4).toString(), 'abcd');
  });

  it('a line longer than the scratch may hold gets a buffer of its own, and the scratch is not grown', () => {
    const before = scratchBytes();
    const big = Buffer.alloc(MAX_SCRATCH + 10, 'q');
    const joined = joinBytes(pieces(big, 1 << 20), big.length);
    assert.equal(joined.length, big.length);
    assert.ok(joined.equals(big));
    assert.equal(scratchBytes(), before);
  });

  it('joins text parts as a join would; a long all-ASCII text through the scratch is its own copy, unchanged when the scratch is reused', () => {
    const ascii = Array.from({ length: 6 }, (_, i) => String.fromCharCode(97 + i).repeat(300_000));
    const first = joinText(ascii);
    assert.ok(first === ascii.join(''));
    const again = ['Z'.repeat(1_800_000)];
    assert.ok(joinText(again) === again[0]);
    assert.ok(first === ascii.join(''), 'the first text did not change when the scratch was written again');
    for (const parts of [['é'.repeat(600_000), 'x'.repeat(600_000)], ['😀'.repeat(300_000), 'y'.repeat(600_000)], ['short', ' one'], []])
      assert.ok(joinText(parts) === parts.join(''), `${parts.length} parts`);
    assert.equal(joinText(['x'.repeat(EXTERNAL_FROM)]).length, EXTERNAL_FROM);
  });

  it('a LineReader fed many chunks gives back every line exactly, one after another through the same scratch', () => {
    const lines = [`{"a":"${'😀'.repeat(40_000)}"}`, `{"b":"${'é界'.repeat(70_000)}"}`, '{"c":1}', `{"d":"${'z'.repeat(300_000)}"}`];
    const got: string[] = [];
    const r = new LineReader({ maxBytes: 64 * 1024 * 1024, onLine: (l) => got.push(l), onOversize: () => assert.fail('oversize') });
    for (const p of pieces(Buffer.from(`${lines.join('\n')}\n`), 65_531)) r.push(p);
    assert.deepEqual(got, lines);
  });
});
