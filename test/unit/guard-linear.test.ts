import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { judgeSurface } from '../../src/guard/scanner.js';

/**
 * The guard reads what an upstream (or, through session resources, a lane) chose: its cost must be
 * linear in the text, whatever its shape. A 1 MB resource name once cost a shared host twenty
 * minutes of CPU (quadratic e-mail and URL patterns); each shape below was quadratic somewhere.
 */
const N = 16 * 1024;
/** Each shape at n characters (a pattern repeated, cut to n). */
const SHAPES: Record<string, string> = {
  letters: 'n',
  spaces: 'a ',
  dots: 'a.',
  dashes: '-',
  emailish: 'a.b',
  at: 'a@',
  urls: 'http://a',
  mixed: 'ab1-_.',
  cjk: '文',
  quotes: '"a',
};
const of = (unit: string, n: number): string => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);

/**
 * The CPU time of judging `text` in a description, a resource name and a URI (ms): this process's
 * own, so other test files running at the same time on the same cores do not count (wall time once
 * read 16 -> 137 ms for a linear shape in a loaded CI run, and failed it).
 */
const once = (text: string): number => {
  const t0 = process.cpuUsage();
  judgeSurface({ tools: [{ name: 't', description: text, inputSchema: { type: 'object' } }] });
  judgeSurface({ resources: [{ uri: `demo://r/${text}`, name: text }] });
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / 1000;
};

/**
 * The best of five timings of each text, taken in turns (small, large, small, ...): a moment when
 * the process was slowed anyway (a collection, a cache cold after another process ran) then slows
 * one timing of each, not every timing of one of them.
 */
const costs = (small: string, large: string): { small: number; large: number } => {
  const best = { small: Number.POSITIVE_INFINITY, large: Number.POSITIVE_INFINITY };
  for (let k = 0; k < 5; k += 1) {
    best.small = Math.min(best.small, once(small));
    best.large = Math.min(best.large, once(large));
  }
  return best;
};

describe('guard cost is linear in what it reads', () => {
  for (const [shape, unit] of Object.entries(SHAPES)) {
    it(`${shape}: four times the text costs about four times as much, not sixteen (and stays fast)`, () => {
      const { small, large } = costs(of(unit, N), of(unit, 4 * N));
      // Linear: ~4x. Quadratic: ~16x (the patterns fixed here took seconds to minutes at 64 KiB).
      // A floor of 2 ms keeps timer noise on a tiny `small` from reading as growth.
      assert.ok(large / Math.max(small, 2) < 8, `${shape}: ${small.toFixed(1)} ms -> ${large.toFixed(1)} ms`);
      assert.ok(large < 3000, `${shape}: ${large.toFixed(0)} ms at 64 KiB`);
    });
  }

  it('a name past 2,048 characters or a text past 64 KiB refuses its item for its size, read only to the bound', () => {
    const name = `f0-${'n'.repeat(1_000_000)}.gz`;
    const t0 = performance.now();
    const v = judgeSurface({ resources: [{ uri: `demo://resource/dynamic/${name}`, name, description: 'A gzip file' }] });
    const ms = performance.now() - t0;
    const codes = v.flatMap((x) => x.findings.map((f) => f.code));
    assert.ok(codes.includes('oversized_text'), codes.join(','));
    assert.ok(ms < 3000, `${ms.toFixed(0)} ms`);
    const ok = judgeSurface({ tools: [{ name: 'ok', description: 'd'.repeat(60_000), inputSchema: { type: 'object' } }] });
    assert.ok(!ok.flatMap((x) => x.findings).some((f) => f.code === 'oversized_text'));
  });
});
