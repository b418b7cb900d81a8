import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { judgeSurface } from '../../src/guard/scanner.js';

/**
 * The guard reads what an upstream (or, through session resources, a lane) chose: its cost must be
 * linear in the text, whatever its shape. A 1 MB resource name once cost a shared host twenty
 * minutes of CPU (quadratic e-mail and URL patterns); each shape below was quadratic somewhere.
 */
const N = 64 * 1024;
const SHAPES: Record<string, string> = {
  letters: 'n'.repeat(N),
  spaces: 'a '.repeat(N / 2),
  dots: 'a.'.repeat(N / 2),
  dashes: '-'.repeat(N),
  emailish: 'a.b'.repeat(N / 3),
  at: 'a@'.repeat(N / 2),
  urls: 'http://a'.repeat(N / 8),
  mixed: 'ab1-_.'.repeat(N / 6),
  cjk: '文'.repeat(N),
  quotes: '"a'.repeat(N / 2),
};

describe('guard cost is linear in what it reads', () => {
  for (const [shape, text] of Object.entries(SHAPES)) {
    it(`${shape}: 64 KiB in a description, a resource name and a URI is judged in bounded time`, () => {
      const t0 = performance.now();
      judgeSurface({ tools: [{ name: 't', description: text, inputSchema: { type: 'object' } }] });
      judgeSurface({ resources: [{ uri: `demo://r/${text}`, name: text }] });
      const ms = performance.now() - t0;
      // Quadratic patterns took seconds to minutes here; linear ones take tens of milliseconds.
      assert.ok(ms < 3000, `${shape}: ${ms.toFixed(0)} ms`);
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
