/**
 * What the secret scan costs a host, per call and per byte: `node --import tsx test/bench/secrets.bench.ts`.
 * Small calls (the arguments and answer of an echo), and answers of 1 MB and 16 MB: prose, base64
 * and many small JSON objects (honest text: no findings, the common case), plus 1 MB adversarial
 * inputs built against the patterns. Prints µs per small call and ns per byte.
 */
import { SecretDetector } from '../../src/guard/secrets/detector.js';

const detector = new SecretDetector(['vlt-7Hq2Zx9LmP4wK8rT3nB6', 'mbx-Jd83KqLz0Pw5Rt7Vn2Xc']);
const MB = 1 << 20;

const WORDS =
  'the gateway routes each call by tool prefix and keeps a ledger of hazards; token budgets, api versions, key names and secret stores are discussed here without holding any value: build 7f3a9c2 passed 42 checks at 2026-07-28T10:00:00Z see https://example.org/docs?id=12&page=3'.split(
    ' ',
  );
const prose = (bytes: number): string => {
  const out: string[] = [];
  let n = 0;
  for (let i = 0; n < bytes; i += 1) {
    const w = WORDS[(i * 7919) % WORDS.length] ?? 'x';
    out.push(i % 17 === 16 ? `${w}\n` : w);
    n += w.length + 1;
  }
  return out.join(' ').slice(0, bytes);
};
const base64 = (bytes: number): string => {
  const b = Buffer.alloc(Math.ceil((bytes * 3) / 4));
  for (let i = 0; i < b.length; i += 1) b[i] = (i * 2654435761) >>> 24;
  return b.toString('base64').slice(0, bytes);
};
const objects = (bytes: number): unknown => {
  const entities: unknown[] = [];
  let n = 0;
  for (let i = 0; n < bytes; i += 1) {
    const e = { name: `entity-${i}`, entityType: 'note', observations: [`observed ${i} times`, `id ${(i * 31) % 997}`] };
    n += JSON.stringify(e).length;
    entities.push(e);
  }
  return { content: [{ type: 'text', text: 'graph' }], structuredContent: { entities } };
};

const time = (label: string, bytes: number, value: unknown, rounds: number): void => {
  detector.scan(value, 'result');
  const t = process.hrtime.bigint();
  let found = 0;
  for (let i = 0; i < rounds; i += 1) found += detector.scan(value, 'result').length;
  const ns = Number(process.hrtime.bigint() - t) / rounds;
  console.log(
    `${label.padEnd(34)} ${(ns / 1e6).toFixed(2).padStart(9)} ms  ${(ns / bytes).toFixed(2).padStart(7)} ns/byte  findings ${found / rounds}`,
  );
};

const smallArgs = { arguments: { message: 'hello from lane a' } };
const smallAnswer = { content: [{ type: 'text', text: 'Echo: hello from lane a' }] };
{
  for (let i = 0; i < 20_000; i += 1) {
    detector.scan(smallArgs, 'arguments');
    detector.scan(smallAnswer, 'result');
  }
  const rounds = 200_000;
  const t = process.hrtime.bigint();
  for (let i = 0; i < rounds; i += 1) {
    detector.scan(smallArgs.arguments, 'arguments');
    detector.scan(smallAnswer, 'result');
  }
  const ns = Number(process.hrtime.bigint() - t) / rounds;
  console.log(`small call (echo args + answer)     ${(ns / 1000).toFixed(2).padStart(9)} µs per call (both directions)`);
}
for (const [label, size, rounds] of [
  ['1 MB', MB, 20],
  ['16 MB', 16 * MB, 3],
] as const) {
  time(`${label} prose answer`, size, { content: [{ type: 'text', text: prose(size) }] }, rounds);
  time(`${label} base64 answer (image/blob)`, size, { contents: [{ uri: 'x://b', blob: base64(size) }] }, rounds);
  const o = objects(size);
  time(`${label} many small objects`, JSON.stringify(o).length, o, rounds);
}
const rep = (s: string): string => s.repeat(Math.ceil(MB / s.length)).slice(0, MB);
// Text the scan reads again through disguises (normalise.ts): CJK prose with full-width punctuation and
// digits, and ASCII prose with a zero-width space every 40 characters. UTF-16 units, not bytes.
const cjk = rep('東京の天気は晴れ、気温は２５度です。（詳細：ゲートウェイの記録を参照）明日は雨でしょう。');
time('1 MB CJK prose, full-width punct.', MB, { content: [{ type: 'text', text: cjk }] }, 10);
const zw = prose(MB)
  .replace(/(.{40})/g, '$1\u200b')
  .slice(0, MB);
time('1 MB prose, zero-width spaces', MB, { content: [{ type: 'text', text: zw }] }, 10);
for (const [label, text] of [
  ['adversarial eyJ..eyJ.', rep('eyJhbGciOi.')],
  ['adversarial secret=secret=', rep('secret=')],
  ['adversarial -----BEGIN', rep('-----BEGIN')],
  ['adversarial sk-A1A1…', `sk-${'A1'.repeat(MB / 2)}`],
  ['adversarial password=a1b2…', rep('password=a1b2c3d4e5f6g7h8 ')],
] as const)
  time(label, MB, { text }, 5);
