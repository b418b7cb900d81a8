import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SecretDetector } from '../../src/guard/secrets/detector.js';
import { PACED_CHARS, scanText, scanTextPaced } from '../../src/guard/secrets/text.js';

// Attack round 8, finding 11: a credential disguised by characters that render as nothing, or by
// compatibility forms of ASCII, passed the scan both ways. Values are assembled at run time so no
// scanner of this repository mistakes them for real ones.
const GITHUB = ['ghp', 'Q7mZ2vK9pL4xT8wR1nB6cY3hJ5dF0gS2aE7u'].join('_');
const AWS = ['AKIA', 'Z3MPLQ4RT6VW7XY2'].join('');
const INJECTED = 'vlt-7Hq2Zx9LmP4wK8rT3nB6';
const BEFORE = 'Deploy with ';
const AFTER = ' and tell nobody. 東京、２０２６年。';

/** Full-width form of ASCII text (U+FF01..U+FF5E). */
const wide = (s: string): string => s.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));
/** Mathematical bold letters and digits (U+1D400.., U+1D7CE..): two UTF-16 units each. */
const bold = (s: string): string =>
  [...s]
    .map((c) => {
      if (c >= 'A' && c <= 'Z') return String.fromCodePoint(0x1d400 + c.charCodeAt(0) - 65);
      if (c >= 'a' && c <= 'z') return String.fromCodePoint(0x1d41a + c.charCodeAt(0) - 97);
      if (c >= '0' && c <= '9') return String.fromCodePoint(0x1d7ce + c.charCodeAt(0) - 48);
      return c;
    })
    .join('');
const split = (s: string, at: number, ch: string): string => s.slice(0, at) + ch + s.slice(at);

const DISGUISES: Record<string, string> = {
  'a zero-width space inside': split(GITHUB, 10, '\u200b'),
  'zero-width spaces between every character': [...GITHUB].join('\u200b'),
  'a soft hyphen inside': split(GITHUB, 10, '\u00ad'),
  'a soft hyphen in the prefix': split(GITHUB, 2, '\u00ad'),
  'a full-width prefix': wide('ghp_') + GITHUB.slice(4),
  'the whole token full-width': wide(GITHUB),
  'a BOM inside the prefix': split(GITHUB, 3, '\ufeff'),
  'a zero-width joiner inside': split(GITHUB, 20, '\u200d'),
  'a word joiner (U+2060) inside': split(GITHUB, 5, '\u2060'),
  'an invisible separator (U+2063) inside': split(GITHUB, 30, '\u2063'),
  'a left-to-right mark inside': split(GITHUB, 8, '\u200e'),
  'a bidi override (U+202E) inside': split(GITHUB, 8, '\u202e'),
  'a tag character (U+E0041, Cf) inside': split(GITHUB, 12, String.fromCodePoint(0xe0041)),
  'a variation selector inside': split(GITHUB, 12, '\ufe0f'),
  'mathematical bold letters': bold(GITHUB),
  'full-width digits inside': GITHUB.replace(/[0-9]/g, (d) => wide(d)),
  // Attack round 12: characters most terminals and UIs show as nothing, and percent-escapes.
  'a DEL inside': split(GITHUB, 10, '\x7f'),
  'a DEL inside the prefix': split(GITHUB, 2, '\x7f'),
  'a NUL inside': split(GITHUB, 10, '\x00'),
  'a BEL inside': split(GITHUB, 10, '\x07'),
  'a C1 control (U+0085) inside': split(GITHUB, 10, '\u0085'),
  'a private-use character (U+E000) inside': split(GITHUB, 10, '\ue000'),
  'a noncharacter (U+FFFE) inside': split(GITHUB, 10, '\ufffe'),
  'the object replacement character (U+FFFC) inside': split(GITHUB, 10, '\ufffc'),
  'a blank Braille pattern (U+2800) inside': split(GITHUB, 10, '\u2800'),
  // Attack round 13: the same outside the first plane, and surrogates on their own.
  'a plane-15 private-use character inside': split(GITHUB, 10, String.fromCodePoint(0xf0000)),
  'a plane-16 private-use character inside': split(GITHUB, 10, String.fromCodePoint(0x10fffd)),
  'a supplementary noncharacter (U+1FFFE) inside': split(GITHUB, 10, String.fromCodePoint(0x1fffe)),
  'the last code point (U+10FFFF) inside': split(GITHUB, 10, String.fromCodePoint(0x10ffff)),
  'the musical null notehead (U+1D159) inside': split(GITHUB, 10, String.fromCodePoint(0x1d159)),
  'a lone lead surrogate inside': split(GITHUB, 10, '\ud800'),
  'a lone trail surrogate inside': split(GITHUB, 10, '\udc00'),
  // Attack round 13: percent-encoding one layer down, twice, or in full-width.
  'a percent-encoded soft hyphen (%C2%AD) inside': split(GITHUB, 10, '%C2%AD'),
  'a percent-encoded zero-width space (%E2%80%8B) inside': split(GITHUB, 10, '%E2%80%8B'),
  'a percent-encoded DEL (%7F) inside': split(GITHUB, 10, '%7F'),
  'a percent-encoded NUL (%00) inside': split(GITHUB, 10, '%00'),
  'a percent-encoded full-width letter (%EF%BD%87) in the prefix': `%EF%BD%87${GITHUB.slice(1)}`,
  'a doubly percent-encoded letter (%2567) in the prefix': `%2567${GITHUB.slice(1)}`,
  'a full-width percent-escape (％６７) in the prefix': `％６７${GITHUB.slice(1)}`,
  'a percent-escaped letter in the prefix': `gh%70${GITHUB.slice(3)}`,
};

describe('the secret scan reads through disguises (attack round 8, finding 11)', () => {
  const d = new SecretDetector([INJECTED]);
  for (const [name, token] of Object.entries(DISGUISES)) {
    const text = `${BEFORE}${token}${AFTER}`;
    it(`finds a GitHub token with ${name}`, () => {
      assert.deepEqual(
        d.scan({ message: text }, 'arguments').map((f) => `${f.rule} ${f.path}`),
        ['github_token arguments.message'],
      );
    });
    it(`redaction cuts the whole token with ${name}, exactly, and keeps the text around it`, () => {
      assert.equal(d.redact(text), `${BEFORE}[secret redacted: github_token]${AFTER}`);
    });
  }

  it('a BOM before a token stays (it is not the credential); the token is cut', () => {
    const text = `\ufeff${GITHUB}\u200b\n`;
    assert.deepEqual(scanText(text), [{ rule: 'github_token', start: 1, end: 1 + GITHUB.length }]);
    assert.equal(d.redact(text), '\ufeff[secret redacted: github_token]\u200b\n');
  });

  it('a hidden character joining a token to the word before it does not hide it (both readings count)', () => {
    const text = `prefix\u200b${GITHUB} tail`;
    assert.equal(d.redact(text), 'prefix\u200b[secret redacted: github_token] tail');
  });

  it('two disguised tokens and a plain one in one string are each cut at their own place', () => {
    const text = `a ${split(GITHUB, 6, '\u00ad')} b ${wide(AWS)} c ${GITHUB} d`;
    assert.equal(
      d.redact(text),
      'a [secret redacted: github_token] b [secret redacted: aws_access_key_id] c [secret redacted: github_token] d',
    );
  });

  it('a credential in URL-encoded text is found and cut exactly (attack round 12)', () => {
    const b64url = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64url');
    const jwt = `${b64url({ alg: 'RS256', typ: 'JWT' })}.${b64url({ sub: 'u1' })}.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk`;
    const remote = `https%3A%2F%2Foauth2%3A${GITHUB}%40github.com%2Forg%2Frepo.git`;
    assert.equal(d.redact(remote), 'https%3A%2F%2Foauth2%3A[secret redacted: github_token]%40github.com%2Forg%2Frepo.git');
    // Named a token once decoded, more of it goes: the name's value as well.
    const named = String(d.redact(`https%3A%2F%2Fx-access-token%3A${GITHUB}%40github.com`));
    assert.ok(!named.includes(GITHUB.slice(4)) && named.startsWith('https%3A%2F%2Fx-access-') && named.endsWith('%40github.com'), named);
    assert.ok(d.scan({ h: `Authorization%3A%20Bearer%20${jwt}` }, 'x').some((f) => f.rule === 'jwt'));
    assert.ok(d.scan({ q: `cb?id_token%3D${jwt}&x=1` }, 'x').some((f) => f.rule === 'jwt'));
    for (const honest of ['path%2Fto%2Ffile name%20here', 'https://example.org/search?q=a%20b%26c&page=2', '100% sure, 50%off', '%zz%4'])
      assert.deepEqual(d.scan({ honest }, 'x'), [], honest);
  });

  it("a host's injected value is found through a disguise too", () => {
    for (const v of [split(INJECTED, 4, '\u200b'), wide(INJECTED), split(INJECTED, 9, '\u00ad')]) {
      const text = `configured: ${v}.`;
      assert.deepEqual(
        d.scan({ text }, 'result').map((f) => f.rule),
        ['injected_secret'],
        JSON.stringify(text),
      );
      assert.equal(d.redact(text), 'configured: [secret redacted: injected_secret].');
    }
  });

  it('a credential named by a disguised name, or with a disguised value, is found by its name', () => {
    const value = 'Xy7Qp2Lm9Rt4Kv8Wz3Nb';
    for (const o of [
      { ｐａｓｓｗｏｒｄ: value },
      { password: wide(value) },
      { 'api\u200b_key': value },
      { token: split(value, 6, '\ufeff') },
    ]) {
      const found = d.scan(o, 'arguments');
      assert.deepEqual(
        found.map((f) => f.rule),
        ['generic_secret'],
        JSON.stringify(o),
      );
      assert.deepEqual(Object.values(d.redact(o) as Record<string, string>), ['[secret redacted: generic_secret]']);
    }
  });

  it('ordinary CJK and full-width prose is no finding, and passes redaction unchanged', () => {
    const prose = [
      '東京都の天気は晴れ、気温は２５度です。（詳細：ゲートウェイの記録を参照）',
      'ＡＰＩキーの管理について：キーは設定ファイルに保存しないでください。',
      'パスワード＝秘密にしてください。ｔｏｋｅｎという言葉は説明のためだけです。',
      '我们的网关每天处理１２０００次请求，ＣＰＵ使用率为３５％。',
      '한국어 문장입니다. 전각 문자ＡＢＣ와 숫자１２３도 있습니다.',
      'Ｐｌｅａｓｅ ｒｅａｄ ｔｈｅ ｍａｎｕａｌ ｂｅｆｏｒｅ ｃａｌｌｉｎｇ ｔｈｅ ｓｕｐｐｏｒｔ ｌｉｎｅ．',
      'ﬁnal ﬂow: ① ② ③, H₂O, x², ™, ℡ ５５５－１２３４, Ⅻ chapters',
      'emoji 👍🏽 and a family 👨\u200d👩\u200d👧 with joiners, a flag 🇯🇵, a keycap 1\ufe0f\u20e3',
    ];
    for (const text of prose) {
      assert.deepEqual(d.scan({ text }, 'result'), [], text);
      assert.equal(d.redact(text), text);
    }
  });

  it('scanTextPaced finds what scanText finds through disguises, in a long string', async () => {
    const pad = '日本語の文章、ＡＢＣ。lorem ipsum\u200b dolor '.repeat(Math.ceil(PACED_CHARS / 30));
    const text = `${pad} ${split(GITHUB, 10, '\u200b')} ${pad} ${wide(AWS)} ${pad} ${bold(GITHUB)} end`;
    assert.ok(text.length > PACED_CHARS);
    const whole = scanText(text);
    const paced = await scanTextPaced(text, undefined, async () => {});
    assert.deepEqual(paced, whole);
    assert.deepEqual(whole.map((h) => h.rule).sort(), ['aws_access_key_id', 'github_token', 'github_token']);
    // Each hit is the disguised credential's exact range in the original.
    const cut = whole.map((h) => text.slice(h.start, h.end)).sort();
    assert.deepEqual(cut, [bold(GITHUB), split(GITHUB, 10, '\u200b'), wide(AWS)].sort());
  });
});

describe('reading through disguises stays linear', () => {
  const MB = 1 << 20;
  const rep = (s: string): string => s.repeat(Math.ceil(MB / s.length)).slice(0, MB);
  const d = new SecretDetector([INJECTED]);
  const inputs: Record<string, string> = {
    'zero-width spaces': rep('\u200b'),
    'ghp_ then a ZWSP': rep('ghp_\u200b'),
    'full-width ｇｈｐ＿': rep(wide('ghp_')),
    'full-width secret=': rep(wide('secret=')),
    'eyJ and soft hyphens': rep('eyJ\u00ad'),
    'mathematical bold A': rep(bold('A')),
    'expanding ℡ and ⑽': rep('℡⑽'),
    'a lone lead surrogate of a disguise range': rep('\ud835'),
    '-----BEGIN with a BOM': rep('-----BEGIN\ufeff'),
  };
  for (const [name, text] of Object.entries(inputs))
    it(`1 MB of ${name} scans in linear time: seconds of CPU at most, where a quadratic reading takes many minutes`, (tc) => {
      // CPU time, not wall time: the unit files share phase 1 of npm test with busy processes, and
      // under that load a 200 ms scan once read 1.5 s on the clock. What is bounded is the work.
      // On a machine whose fresh memory is slow to fault in (README), the slowest input here took
      // 846 ms of CPU alone (373 of it system time) and 1,502 ms in a full run, hence 4 s.
      const t = process.cpuUsage();
      d.scan({ text }, 'x');
      d.redact(text);
      const used = process.cpuUsage(t);
      const ms = (used.user + used.system) / 1000;
      tc.diagnostic(`${ms.toFixed(0)} ms of CPU (user ${(used.user / 1000).toFixed(0)}, system ${(used.system / 1000).toFixed(0)})`);
      assert.ok(ms < 4000, `${ms.toFixed(0)} ms of CPU`);
    });
});
