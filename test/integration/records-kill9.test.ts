import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { buildSync } from 'esbuild';
import { ROOT, tempDir } from '../helpers/gateway.js';

/**
 * The writer runs the front's own records code, bundled once the way the build bundles it (tsx
 * would add its start-up to each of the 200 runs).
 */
const WRITER = path.join(tempDir('writer'), 'writer.mjs');
buildSync({
  entryPoints: [path.join(ROOT, 'test/fixtures/records/writer.ts')],
  bundle: true,
  platform: 'node',
  format: 'esm',
  outfile: WRITER,
  logLevel: 'warning',
});
const KILLS = 200;

/** A deterministic pseudo-random sequence (the kill moments are reproducible). */
const rng = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};

/** Runs the writer from `start`, SIGKILLs it `delayMs` after it is ready; returns what it said. */
const runAndKill = (stateDir: string, start: number, delayMs: number): Promise<string> =>
  new Promise((resolve) => {
    const p = spawn(process.execPath, [WRITER, stateDir, String(start)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    let armed = false;
    p.stdout.setEncoding('utf8');
    p.stdout.on('data', (c: string) => {
      out += c;
      if (!armed && out.includes('ready\n')) {
        armed = true;
        setTimeout(() => p.kill('SIGKILL'), delayMs);
      }
    });
    p.on('exit', () => resolve(out));
  });

/**
 * One state dir's share of the kills: the writer run and killed again and again, each run told to
 * go on from past the last acknowledged observation. Returns what was acknowledged and where the
 * next run would start. At least `kills` kills, and more (up to twice as many) until more than
 * `kills` observations were acknowledged: on a slow moment of the machine a run acknowledges less
 * before its kill (94 and 97 in 100 kills, against ~200 usually), and the test must still have
 * killed the writer amid that many acknowledged writes.
 */
const killChain = async (stateDir: string, kills: number, seed: number): Promise<{ acked: number[]; start: number; killed: number }> => {
  const next = rng(seed);
  const acked: number[] = [];
  let start = 0;
  let k = 0;
  for (; (k < kills || acked.length <= kills) && k < 2 * kills; k += 1) {
    const out = await runAndKill(stateDir, start, Math.floor(next() * 40));
    assert.doesNotMatch(out, /CORRUPT/, `run ${k} found a records file it could not read:\n${out}`);
    for (const m of out.matchAll(/^ack (\d+)$/gm)) acked.push(Number(m[1]));
    start = (acked.at(-1) ?? start) + 1 + 1000; // never reuse a name an unacknowledged write may have used
  }
  return { acked, start, killed: k };
};

/** The kills run in this many state dirs side by side (a writer each; the file runs on a machine otherwise quiet). */
const CHAINS = 2;

describe('records survive kill -9 during writes', () => {
  it(`at least ${KILLS} SIGKILLs mid-write: every file parses, nothing acknowledged is lost, no temp file is left`, async (t) => {
    const dirs = Array.from({ length: CHAINS }, (_, c) => tempDir(`kill9-${c}`));
    const chains = await Promise.all(dirs.map((d, c) => killChain(d, KILLS / CHAINS, 42 + c)));
    for (const [c, { acked, start, killed }] of chains.entries()) {
      const stateDir = dirs[c] as string;
      assert.ok(acked.length > KILLS / CHAINS, `the writer made progress (${acked.length} acknowledged in ${stateDir})`);
      t.diagnostic(`${killed} kills, ${acked.length} observations acknowledged (each a hazard, a verdict and a guard record)`);
      const records = path.join(stateDir, 'records');
      const ledger = JSON.parse(readFileSync(path.join(records, 'observed-hazards.json'), 'utf8')) as { servers: Record<string, unknown> };
      const verdicts = JSON.parse(readFileSync(path.join(records, 'shareability-verdicts.json'), 'utf8')) as {
        entries: Record<string, unknown>;
      };
      const guard = JSON.parse(readFileSync(path.join(records, 'guard.json'), 'utf8')) as { servers: Record<string, unknown> };
      const lost = acked.filter((i) => !ledger.servers[`s${i}`] || !verdicts.entries[`s${i}`] || !guard.servers[`s${i}`]);
      assert.deepEqual(lost, [], `acknowledged observations lost: ${lost.slice(0, 10).join(', ')}`);
      // The next start sweeps the temp files of killed writers.
      await runAndKill(stateDir, start, 0);
      // (writes are sequential, so the last kill can leave at most the one temp file it interrupted)
      const temps = readdirSync(records).filter((f) => f.endsWith('.tmp'));
      assert.ok(temps.length <= 1, `temp files of dead writers are swept at start (left: ${temps.join(', ')})`);
      assert.deepEqual(
        readdirSync(records).filter((f) => f.includes('.corrupt-')),
        [],
        'no file was ever found corrupt',
      );
    }
  });
});
