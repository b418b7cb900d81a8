import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DISGUISES } from '../../src/guard/secrets/disguise-table.js';
import { disguised, normalise } from '../../src/guard/secrets/normalise.js';

/** The table as this Node's Unicode data makes it: hidden (Cf, default-ignorable) or folding to ASCII under NFKC. */
const computeTable = (): string => {
  const hidden = /^[\p{Cf}\p{DI}]$/u;
  const ranges: [number, number][] = [];
  for (let cp = 0x80; cp <= 0x10ffff; cp += 1) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const s = String.fromCodePoint(cp);
    const n = s.normalize('NFKC');
    if (!hidden.test(s) && !(n !== s && n.length > 0 && [...n].every((c) => c.charCodeAt(0) < 0x80))) continue;
    const last = ranges[ranges.length - 1];
    if (last && last[1] === cp - 1) last[1] = cp;
    else ranges.push([cp, cp]);
  }
  return ranges.map(([a, b]) => (a === b ? a.toString(16) : `${a.toString(16)}-${b.toString(16)}`)).join(' ');
};

describe('what the secret scan reads text as (normalise.ts)', () => {
  it("the table is exactly this Node's hidden and ASCII-folding code points", () => {
    const fresh = computeTable();
    assert.equal(DISGUISES, fresh, `regenerate src/guard/secrets/disguise-table.ts with:\n${fresh}`);
  });

  it('text without a disguise is left alone (no copy, no index)', () => {
    for (const s of ['', 'plain ascii text with ghp_ and = signs', 'café déjà vu', '東京の天気は晴れ。', '👍🏽 𝄞', 'x'.repeat(5000)]) {
      assert.equal(normalise(s), undefined, s);
      assert.equal(disguised(s), false, s);
    }
  });

  it('removes hidden characters, folds compatibility forms to ASCII, and maps every range back exactly', () => {
    // a ZWSP (removed), full-width ｇ (one for one), 𝐀 (two units to one), ℡ (one to three), a soft hyphen, a tag character.
    const original = `x\u200bｇ𝐀℡\u00ady${String.fromCodePoint(0xe0041)}z`;
    const n = normalise(original);
    assert.ok(n);
    assert.equal(n.text, 'xgATELyz');
    assert.equal(disguised(original), true);
    const back = (s: number, e: number): string => {
      const [a, b] = n.map.range(s, e);
      return original.slice(a, b);
    };
    assert.equal(back(0, 1), 'x');
    assert.equal(back(1, 2), 'ｇ');
    assert.equal(back(0, 2), 'x\u200bｇ');
    assert.equal(back(2, 3), '𝐀');
    assert.equal(back(3, 4), '℡', 'a part of an expansion maps to the whole character');
    assert.equal(back(4, 6), '℡', 'a part of an expansion maps to the whole character');
    assert.equal(back(3, 7), '℡\u00ady');
    assert.equal(back(6, 8), `y${String.fromCodePoint(0xe0041)}z`);
    assert.equal(back(0, 8), original);
  });

  it('every range of a randomly disguised string maps back to the original text that reads as it', () => {
    const disguises = ['\u200b', '\u00ad', '\ufeff', '\u2060', '\ufe0f', String.fromCodePoint(0xe0020)];
    let seed = 7;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let round = 0; round < 200; round += 1) {
      const plain = Array.from({ length: 1 + rand(40) }, () => 'abcXYZ019_-'[rand(11)]).join('');
      let original = '';
      for (const c of plain) {
        if (rand(3) === 0) original += disguises[rand(disguises.length)];
        original += rand(4) === 0 ? String.fromCharCode((c as string).charCodeAt(0) + 0xfee0) : c;
      }
      const n = normalise(original);
      if (!n) {
        assert.equal(original, plain);
        continue;
      }
      assert.equal(n.text, plain);
      const s = rand(plain.length);
      const e = s + 1 + rand(plain.length - s);
      const [a, b] = n.map.range(s, e);
      assert.equal(normalise(original.slice(a, b))?.text ?? original.slice(a, b), plain.slice(s, e), JSON.stringify(original));
    }
  });

  it('a lone surrogate reads as nothing, never an error (attack round 13 hid a token with one); a pair reads as its character', () => {
    for (const [s, text] of [
      ['\ud835', ''],
      ['\ud835x', 'x'],
      ['x\udc00', 'x'],
      ['\udb40', ''],
      ['\ud835\udc00\ud835', 'A'],
    ])
      assert.equal(normalise(s as string)?.text, text, JSON.stringify(s));
    assert.equal(normalise('😀 ok'), undefined, 'an emoji is no disguise');
  });
});
