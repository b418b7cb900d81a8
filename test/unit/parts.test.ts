import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Writable } from 'node:stream';
import { isUtf8 } from 'node:buffer';
import { charsOf, decodeUtf8, encodingOf, hasControl, joinWire, needsJsonEscape, PieceCursor, writeCorked } from '../../src/rpc/parts.js';

describe('text as parts, pieces and bytes (issue 19)', () => {
  it('writes a long piece as latin1 only when it is all ASCII; Latin-1 letters and surrogates stay utf8', () => {
    assert.equal(encodingOf('a'.repeat(20_000)), 'latin1');
    assert.equal(encodingOf(`${'a'.repeat(20_000)}é`), 'utf8', 'é is one JS unit but two UTF-8 bytes');
    assert.equal(encodingOf(`${'a'.repeat(20_000)}\u00ff`), 'utf8');
    assert.equal(encodingOf(`${'a'.repeat(20_000)}😀`), 'utf8');
    assert.equal(encodingOf(`${'a'.repeat(20_000)}\ud800`), 'utf8');
    assert.equal(encodingOf('short'), 'utf8', 'a short piece is not checked');
    for (const s of ['a'.repeat(20_000), `${'a'.repeat(20_000)}é😀`]) {
      assert.deepEqual(Buffer.from(s, encodingOf(s)), Buffer.from(s, 'utf8'), 'the same bytes either way');
    }
  });

  it('decodes bytes to the same text either way, invalid UTF-8 included', () => {
    for (const b of [
      Buffer.from('z'.repeat(40_000)),
      Buffer.from(`${'z'.repeat(40_000)}é😀\u2028`),
      Buffer.concat([Buffer.from('y'.repeat(40_000)), Buffer.from([0xff, 0xc3])]),
      Buffer.from('short é'),
    ])
      assert.equal(decodeUtf8(b), b.toString('utf8'));
  });

  it('cuts bytes parts between UTF-8 characters only, and writes them as they are', () => {
    // Strings and UTF-8 bytes mixed, as a large body's parts are (large-body.ts).
    const parts = ['{"a":"', Buffer.from(`x${'é界😀'.repeat(7)}y`), '","b":"', Buffer.from('😀😀'), '"}'];
    const whole = joinWire(parts);
    for (const max of [1, 2, 3, 4, 5, 7, 16, 100]) {
      const c = new PieceCursor(parts);
      const bytes: Buffer[] = [];
      for (let i = 0; i < 1000 && c.left > 0; i += 1) {
        const piece = c.nextParts(max);
        assert.ok(piece.length > 0, `max ${max}: a piece is never empty`);
        for (const p of piece) {
          // Each bytes piece decodes alone to its own characters: no cut inside one.
          if (typeof p !== 'string') assert.ok(isUtf8(p), `max ${max}: a bytes piece ${p.toString('hex')} is cut inside a character`);
          bytes.push(Buffer.from(p));
        }
        // Over the bound only by the rest of ONE character, when a piece would be empty otherwise.
        assert.ok(charsOf(piece) <= Math.max(max, 4), `max ${max}: a piece of ${charsOf(piece)}`);
      }
      assert.equal(Buffer.concat(bytes).toString('utf8'), whole, `max ${max}`);
    }
    const out: Buffer[] = [];
    const sink = new Writable({
      writev: (chunks, cb) => {
        for (const { chunk } of chunks) out.push(Buffer.from(chunk));
        cb();
      },
    });
    writeCorked(sink, parts);
    assert.equal(Buffer.concat(out).toString('utf8'), whole, 'one corked write, strings and bytes in order');
  });

  it('cuts pieces across parts without splitting a surrogate pair', () => {
    const parts = ['ab', `c${'😀'.repeat(5)}`, 'd', '', 'ef😀'];
    const whole = parts.join('');
    for (const max of [1, 2, 3, 4, 7]) {
      const c = new PieceCursor(parts);
      const pieces: string[] = [];
      for (let i = 0; i < 1000 && c.left > 0; i += 1) pieces.push(c.nextParts(max).join(''));
      assert.equal(pieces.join(''), whole, `max ${max}`);
      for (const p of pieces.slice(0, -1)) {
        const last = p.charCodeAt(p.length - 1);
        assert.ok(!(last >= 0xd800 && last <= 0xdbff), `max ${max}: a piece ends in half a pair`);
      }
    }
  });

  it("hands a piece on as the parts' own strings: the same text, never a half pair at its end, never an empty string", () => {
    const parts = ['ab😀', '', 'c😀😀d', 'e'.repeat(50), '😀', 'f'];
    const whole = parts.join('');
    for (const max of [1, 2, 3, 4, 7, 16, 100]) {
      const c = new PieceCursor(parts);
      const pieces: string[][] = [];
      for (let i = 0; i < 1000 && c.left > 0; i += 1) pieces.push(c.nextParts(max).map(String));
      assert.equal(c.left, 0);
      assert.equal(pieces.map((p) => p.join('')).join(''), whole, `max ${max}`);
      for (const p of pieces) {
        const text = p.join('');
        assert.ok(text.length <= Math.max(2, max), `max ${max}: a piece of ${text.length}`);
        assert.ok(p.length > 0 && !p.includes(''), `max ${max}: no empty piece or string`);
        assert.ok(p.length <= parts.length, 'one string per part at most');
      }
      for (const p of pieces.slice(0, -1)) {
        const text = p.join('');
        const last = text.charCodeAt(text.length - 1);
        assert.ok(!(last >= 0xd800 && last <= 0xdbff), `max ${max}: a piece ends in half a pair`);
      }
    }
  });

  it('finds what JSON escapes, with native searches', () => {
    assert.equal(hasControl('abc'), false);
    assert.equal(hasControl('a\u001fb'), true);
    assert.equal(needsJsonEscape('plain text é 😀'), false);
    for (const s of ['"', '\\', '\n', '\u0000', '\ud800x', 'x\udc00']) assert.equal(needsJsonEscape(`a${s}b`), true, JSON.stringify(s));
  });
});
