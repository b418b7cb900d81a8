import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { modernResult, modernResultText } from '../../src/front/transport/modern-result.js';
import { RawResult } from '../../src/rpc/raw.js';

/** A deterministic pseudo-random sequence (failures are reproducible). */
const rng = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};

const SERVER_INFO = { name: 'lanegate', version: '0.1.0' };

describe('2026-07-28 results written around the host text', () => {
  it('means exactly what the parsed path builds, for every result it takes; refuses the ones it cannot splice', () => {
    const next = rng(11);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T;
    const value = (depth: number): unknown => {
      const r = next();
      if (depth > 2 || r < 0.3) return pick(['', 'a "q" \\ \u2028 é', 0, -1.5, true, null, '}{,']);
      if (r < 0.6) return Array.from({ length: Math.floor(next() * 3) }, () => value(depth + 1));
      return Object.fromEntries(
        Array.from({ length: Math.floor(next() * 4) }, () => [
          pick(['content', 'type', 'text', 'isError', '_meta', 'ttlMs', 'x', 'resultType']),
          value(depth + 1),
        ]),
      );
    };
    let spliced = 0;
    let refused = 0;
    for (let i = 0; i < 3000; i++) {
      const method = pick(['tools/call', 'resources/read', 'prompts/get', 'completion/complete']);
      const result = (next() < 0.2 ? {} : value(0)) as unknown;
      if (result === null || typeof result !== 'object' || Array.isArray(result)) continue;
      const obj = result as Record<string, unknown>;
      const text = modernResultText(method, new RawResult(JSON.stringify(obj)), SERVER_INFO)?.join('');
      if (text === undefined) {
        refused += 1;
        assert.ok(
          /"(_meta|ttlMs|resultType|cacheScope)":/.test(JSON.stringify(obj)),
          `refused only for a key it adds: ${JSON.stringify(obj)}`,
        );
        continue;
      }
      spliced += 1;
      assert.deepEqual(JSON.parse(text), modernResult(method, obj, SERVER_INFO), JSON.stringify(obj));
    }
    assert.ok(spliced > 500 && refused > 100, `both paths exercised (${spliced} spliced, ${refused} refused)`);
  });

  it('does not splice what is not an object', () => {
    for (const t of ['[]', '"x"', '1', 'null']) assert.equal(modernResultText('tools/call', new RawResult(t), SERVER_INFO), undefined);
  });
});
