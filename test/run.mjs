// The test suite's runner (npm test runs it after the build): node's own test runner, in two phases
// reported as one run by node's reporter (spec on a terminal, TAP otherwise, as `node --test`
// chooses), with node's summary (tests, suites, pass, fail, ...) once at the end, summed.
//
// 1. The integration files that are independent of each other (each starts its own gateway on
//    port 0 in its own temp dir) run in parallel, in GROUPS of files that share a process, and
//    beside them the unit files (pure), all in one process: CONCURRENCY processes at a time. Each
//    phase's start is printed as a diagnostic line (`phase N at S s: ...`).
// 2. After phase 1, two lanes side by side: the files in SERIAL one at a time (each asserts a memory
//    peak or a rate, which phase 1's processes would distort), and beside them the files in TIMED
//    (a duration with a wide margin, mostly waiting) one at a time.
//
// The files run compiled to plain ESM (test/compile-tests.mjs, one esbuild build before phase 1),
// each test process on plain node: under tsx each one spent ~0.8 s of CPU loading its modules.
// server-everything, started ~200 times, runs from a one-file bundle of the installed package
// (test/published-bundles.mjs): the same server, ~0.1 s less CPU per start.
//
// Run it as `node test/run.mjs [file ...]` (`node --import tsx test/run.mjs`, as npm test does, is
// the same: its children are started without tsx); given files, it runs only those, each in its
// phase. LANEGATE_TEST_CONCURRENCY overrides phase 1's concurrency, LANEGATE_TEST_GROUPS its number
// of groups (0: a process per file); LANEGATE_TEST_TIMES=file writes each file's duration (ms) there
// as JSON.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { run } from 'node:test';
import { spec, tap } from 'node:test/reporters';
import { fileURLToPath } from 'node:url';
import { compileTests } from './compile-tests.mjs';
import { bundleEverything } from './published-bundles.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Integration files that run after phase 1, one at a time (phase 2's first lane), and why: each
 * asserts a memory peak or growth, or a rate, that depends on how fast its processes are scheduled,
 * which phase 1's processes would distort (one TIMED file, mostly waiting, runs beside). (fuzz.test.ts ran in phase 1 for two full runs and passed, but the
 * front's RSS grew +32 and +37 MB there against +14..22 MB alone, for a bound of 40 MB.)
 */
const SERIAL = new Map([
  ['byte-limits.test.ts', "bounds the front's and the host's peak RSS under 24 MB answers; a refusal within 2 s"],
  ['fuzz.test.ts', "bounds the front's RSS and JS heap growth over 10,000 requests"],
  [
    'records-kill9.test.ts',
    'its writer must make progress between SIGKILLs 0-40 ms apart (it barely does on a loaded machine: in a lane of its own beside the two others, its 200 starts took 25 s, too few were acknowledged, and a refusal timed beside it took 2.1 s)',
  ],
]);

/**
 * Files with a timed check that run after phase 1, one at a time (phase 2's second lane, beside
 * one SERIAL file): what each bounds is several times what it measures alone, yet phase 1's load
 * could reach it. They hold the timed tests of files whose others run in phase 1 (cancellation of
 * streams, lane-limits-timed of lane-limits). Keyed by path: one of them is a unit file.
 */
const TIMED = new Map([
  [
    'test/integration/token-lifecycle.test.ts',
    'a revocation or key change takes effect within 1 s (~150 ms measured; the state is polled every 250 ms)',
  ],
  [
    'test/integration/lane-limits-timed.test.ts',
    "the front's peak RSS (VmHWM) under a 100 MiB body; a call cap 300 ms and a cancel 200 ms after their calls",
  ],
  [
    'test/integration/cancel-waiting.test.ts',
    'a cancelled waiting call is answered within 2 s, before the calls ahead of it end (~0.5 s measured)',
  ],
  ['test/integration/cancellation.test.ts', 'a cancelled call ends within 3 s, before the upstream sleep would have (~0.4 s measured)'],
  ['test/unit/guard-linear.test.ts', 'compares the cost of judging 16 and 64 KiB (linear ~4x, bound 8x): phase 1 load skews the pair'],
]);

/**
 * Phase 1 places its longest files first, so that none of them starts late and runs on alone at
 * the end with the machine idle (spot-parity, 24 s, was not listed and started near the end); the
 * short files fill in. With files in groups (below), these times balance the groups: each file goes
 * to the group with the fewest seconds so far. Ordered by their time in a full run in groups on the
 * shared 2-core machine (in s; a file in a group runs beside five other groups, so these are longer
 * than alone): a file listed nowhere is under 8 s.
 */
const LONGEST = [
  ['tasks.test.ts', 76],
  ['gate.test.ts', 68],
  ['spot-parity.test.ts', 59],
  ['live-promotion.test.ts', 38],
  ['dashboard.browser.test.ts', 37],
  ['true-words.test.ts', 37],
  ['modern-upstream.test.ts', 36],
  ['tripwire.test.ts', 36],
  ['cli-output.test.ts', 29],
  ['records-fail-closed.test.ts', 27],
  ['evidence-scope.test.ts', 26],
  ['attack-regressions.test.ts', 24],
  ['cli.test.ts', 21],
  ['audit.test.ts', 19],
  ['first-day.test.ts', 19],
  ['refutation-stands.test.ts', 18],
  ['tasks-modern.test.ts', 18],
  ['guard.test.ts', 16],
  ['real-clients.test.ts', 14],
  ['check.test.ts', 13],
  ['spot-parity-era.test.ts', 12],
  ['lane-limits.test.ts', 10],
  ['guard-surfaces.test.ts', 9],
  ['spot-check.test.ts', 8],
  ['isolation.test.ts', 8],
  ['policy-watch.test.ts', 8],
  ['payload-fidelity.test.ts', 8],
  ['edge-hardening.test.ts', 8],
  ['secrets-honest-traffic.test.ts', 8],
  ['streams.test.ts', 8],
];
const LONGEST_FIRST = LONGEST.map(([f]) => f);
const SECONDS = new Map(LONGEST);

/**
 * Phase 1's concurrency: integration files mostly wait on their processes, so three per core. At
 * four on 2 cores (4 beat 3) the phase used about 72% of the machine's CPU time (user+sys over
 * wall x cores): a full run took 277 CPU seconds in 229 s, 145 s of it phase 1.
 */
const CONCURRENCY = Number(process.env.LANEGATE_TEST_CONCURRENCY) || availableParallelism() * 3;

const listed = (dir) =>
  readdirSync(path.join(ROOT, dir))
    .filter((f) => f.endsWith('.test.ts'))
    .sort()
    .map((f) => path.join(ROOT, dir, f));

const wanted = process.argv.slice(2).map((f) => path.resolve(f));
const rank = (f) => {
  const i = LONGEST_FIRST.indexOf(path.basename(f));
  return i >= 0 && path.dirname(f) === path.join(ROOT, 'test/integration') ? i : LONGEST_FIRST.length;
};
const all = [...listed('test/integration'), ...listed('test/unit')]
  .filter((f) => wanted.length === 0 || wanted.includes(f))
  .sort((a, b) => rank(a) - rank(b));
const isIntegration = (f) => path.dirname(f) === path.join(ROOT, 'test/integration');
const isSerial = (f) => isIntegration(f) && SERIAL.has(path.basename(f));
const isTimed = (f) => TIMED.has(path.relative(ROOT, f));

/**
 * The unit files run in ONE process, imported in order by an entry written beside the compiled
 * files (and compiled with them): they are
 * pure (no process, port or file that another unit file could disturb), and a process per file cost
 * about 0.3 s of CPU each (node, tsx, the test harness), ~15 s over 50 files on a CPU-bound phase.
 * Their tests still run one at a time and report where they are written. The entry starts first in
 * phase 1: one process doing ~20 s of CPU alone must not start last.
 */
const isUnit = (f) => path.dirname(f) === path.join(ROOT, 'test/unit');
const unitFiles = all.filter((f) => isUnit(f) && !isTimed(f));
const outdir = mkdtempSync(path.join(ROOT, 'test', '.compiled-'));
process.on('exit', () => rmSync(outdir, { recursive: true, force: true }));
// Interrupted (Ctrl-C, a CI timeout), the runner still exits through 'exit', which removes them.
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(130));
const unitEntry = unitFiles.length > 1 ? path.join(outdir, 'unit.test.mjs') : undefined;
if (unitEntry) writeFileSync(unitEntry, unitFiles.map((f) => `import ${JSON.stringify(f)};\n`).join(''));
/**
 * Phase 1's integration files run in GROUPS processes, not a process each: a test process costs
 * ~0.8 s of CPU beside its tests (node, the test harness, its modules loaded and warmed up; four
 * files took 10.2 s of CPU in a process each and 7.6 s in one, measured twice). A group's entry
 * imports its files in order and their tests run one file after another, as they did in a process
 * each: every file starts its gateways on port 0 in temp dirs of its own and stops them in its own
 * hooks. A file goes to the group with the fewest seconds so far, longest first (by LONGEST, an
 * unlisted file counted 6 s), so that the groups end near together. As many groups as phase 1 ran
 * files at once (CONCURRENCY), and the unit entry beside them: all start at once, the unit entry's
 * CPU-bound ~10 s first among them. LANEGATE_TEST_GROUPS sets the number of groups; 0 runs a
 * process per file, CONCURRENCY at a time, as before.
 */
const GROUPS = process.env.LANEGATE_TEST_GROUPS === undefined ? CONCURRENCY : Number(process.env.LANEGATE_TEST_GROUPS);
const loose = all.filter((f) => !isSerial(f) && !isTimed(f) && !(unitEntry && unitFiles.includes(f)));
const groups =
  GROUPS > 0
    ? Array.from({ length: Math.min(GROUPS, loose.length) }, () => ({ files: [], seconds: 0 }))
    : loose.map((f) => ({ files: [f], seconds: 0 }));
for (const f of GROUPS > 0 ? loose : []) {
  const g = groups.reduce((least, x) => (x.seconds < least.seconds ? x : least));
  g.files.push(f);
  g.seconds += (isIntegration(f) && SECONDS.get(path.basename(f))) || 6;
}
const entryOf = (g, n) => {
  if (g.files.length === 1) return g.files[0];
  const entry = path.join(outdir, `group-${n + 1}.test.mjs`);
  writeFileSync(entry, g.files.map((f) => `import ${JSON.stringify(f)};\n`).join(''));
  return entry;
};
const parallel = [...(unitEntry ? [unitEntry] : []), ...groups.map(entryOf)];
const groupOf = new Map(groups.map((g, n) => [parallel[n + (unitEntry ? 1 : 0)], g.files]));
/**
 * Phase 1 runs its processes (groups and the unit entry) all at once; phase 2 runs two lanes side by side, each one file
 * at a time: SERIAL's files (one core's worth of work each) in one, TIMED's (mostly waiting) in the
 * other, so that no two SERIAL files and no two TIMED files ever overlap, and the second core is
 * not idle while the SERIAL files run.
 */
const phases = [
  { lanes: [parallel], concurrency: GROUPS > 0 ? parallel.length : CONCURRENCY },
  { lanes: [all.filter(isSerial), all.filter(isTimed)], concurrency: 1 },
]
  .map((p) => ({ ...p, lanes: p.lanes.filter((l) => l.length > 0) }))
  .filter((p) => p.lanes.length > 0);

/**
 * Every file to run, compiled into `outdir` (its own name under out/), and back: the events of a
 * compiled file name its source, as they did when the sources ran under tsx.
 */
const compiled = await compileTests(
  ROOT,
  phases.flatMap((p) => p.lanes.flat()).map((f) => ({ in: f, out: path.relative(ROOT, f).replace(/\.[cm]?[jt]s$/, '') })),
  path.join(outdir, 'out'),
);
// server-everything from one file (test/published-bundles.mjs): the test processes inherit this.
process.env.LANEGATE_TEST_EVERYTHING = await bundleEverything(ROOT, outdir);
const sourceOf = new Map([...compiled].map(([source, out]) => [out, source]));
const asSource = (e) => {
  const source = e.data?.file && sourceOf.get(e.data.file);
  if (!source) return e;
  const named = typeof e.data.name === 'string' && path.resolve(e.data.name) === e.data.file;
  return { ...e, data: { ...e.data, file: source, ...(named ? { name: path.relative(process.cwd(), source) } : {}) } };
};

/**
 * The test processes run compiled files: no loader (node's run() passes the runner's own execArgv
 * on, and npm test starts the runner with --import tsx), and source maps on, so that a failure's
 * stack names its .ts line.
 */
const tsx = (a, i, all) => a === '--import=tsx' || (a === '--import' && all[i + 1] === 'tsx') || (a === 'tsx' && all[i - 1] === '--import');
process.execArgv.splice(0, process.execArgv.length, ...process.execArgv.filter((a, i, all) => !tsx(a, i, all)), '--enable-source-maps');

/**
 * Each file's duration for LANEGATE_TEST_TIMES: a process's own (a file alone, the unit entry, a
 * group), and for a file run in a group the sum of its top-level tests (their events name the
 * source file, through the source maps).
 */
const grouped = new Set(groups.filter((g) => g.files.length > 1).flatMap((g) => g.files));
const groupName = new Map(parallel.map((f, i) => [f, `phase 1 process ${i + 1} (${f === unitEntry ? 'the unit files' : 'a group'})`]));
const noteTime = ({ name, file, details }) => {
  const ms = Math.round(details.duration_ms);
  if (typeof name === 'string' && path.resolve(name) === file) times[groupName.get(file) ?? path.relative(ROOT, file)] = ms;
  else if (grouped.has(file)) times[path.relative(ROOT, file)] = (times[path.relative(ROOT, file)] ?? 0) + ms;
};

const COUNTS = ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo'];
const SUMMARY = /^(tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) [\d.]+$/;
const totals = Object.fromEntries(COUNTS.map((k) => [k, 0]));
const times = {};
const started = performance.now();

/**
 * One lane's files through node's runner, `concurrency` at a time: its events, with the runner's
 * own summary taken into the totals and each file's duration noted. A lane of one file at a time
 * runs each file on its own, so that its events come whole (lanes side by side never interleave
 * inside a file).
 */
async function* laneEvents(files, concurrency) {
  const batches = concurrency === 1 ? files.map((f) => [f]) : [files];
  for (const batch of batches) {
    for await (const raw of run({ files: batch.map((f) => compiled.get(f)), concurrency })) {
      const e = asSource(raw);
      if (e.type === 'test:diagnostic' && e.data.nesting === 0 && e.data.file === undefined && SUMMARY.test(e.data.message)) {
        const [key, value] = e.data.message.split(' ');
        if (key in totals) totals[key] += Number(value);
        continue;
      }
      if (e.type === 'test:complete' && e.data.nesting === 0 && e.data.file) noteTime(e.data);
      yield e;
    }
  }
}

/**
 * Several lanes' events as one sequence: a lone lane streams; lanes side by side are read at once,
 * and each file's events are passed on whole, in the order the files end.
 */
async function* merged(lanes, concurrency) {
  if (lanes.length === 1) {
    yield* laneEvents(lanes[0], concurrency);
    return;
  }
  const ready = [];
  let wake = () => {};
  let open = lanes.length;
  let failed;
  for (const lane of lanes)
    void (async () => {
      for (const f of lane) {
        const held = [];
        for await (const e of laneEvents([f], 1)) held.push(e);
        ready.push(held);
        wake();
      }
    })()
      .catch((e) => {
        failed ??= e;
      })
      .finally(() => {
        open -= 1;
        wake();
      });
  for (;;) {
    while (ready.length > 0) yield* ready.shift();
    if (failed) throw failed;
    if (open === 0) return;
    await new Promise((r) => {
      wake = r;
    });
  }
}

/**
 * The phases' events in order, as one run: each phase's own summary and plan are held back (the
 * totals and one plan come at the end) and its top-level tests are numbered on from the last one's.
 */
async function* events() {
  let numbered = 0;
  for (const [n, phase] of phases.entries()) {
    const at = ((performance.now() - started) / 1000).toFixed(1);
    const count = phase.lanes.reduce((k, l) => k + l.length, 0);
    const files = phase.lanes.flat().reduce((k, f) => k + (f === unitEntry ? unitFiles.length : (groupOf.get(f)?.length ?? 1)), 0);
    const how =
      phase.lanes.length > 1 ? `${phase.lanes.length} lanes side by side, each one file at a time` : `${phase.concurrency} at a time`;
    yield {
      type: 'test:diagnostic',
      data: { nesting: 0, message: `phase ${n + 1} at ${at} s: ${files} files in ${count} processes, ${how}` },
    };
    for await (const e of merged(phase.lanes, phase.concurrency)) {
      if (e.type === 'test:plan' && e.data.nesting === 0) continue;
      if ((e.type === 'test:pass' || e.type === 'test:fail') && e.data.nesting === 0) {
        numbered += 1;
        yield { ...e, data: { ...e.data, testNumber: numbered } };
        continue;
      }
      yield e;
    }
  }
  yield { type: 'test:plan', data: { nesting: 0, count: numbered } };
  for (const key of COUNTS) yield { type: 'test:diagnostic', data: { nesting: 0, message: `${key} ${totals[key]}` } };
  yield { type: 'test:diagnostic', data: { nesting: 0, message: `duration_ms ${performance.now() - started}` } };
}

// As `node --test` chooses: spec on a terminal, TAP otherwise (CI reads its `# tests N` ... lines).
// A failure of the runner itself (not of a test) is printed and fails the run: a stream that
// errors ends the output silently otherwise.
const source = process.stdout.isTTY ? Readable.from(events()) : Readable.from(tap(events()));
source.on('error', (e) => {
  console.error('test runner failed:', e);
  process.exitCode = 1;
});
const reporter = process.stdout.isTTY ? source.pipe(new spec()) : source;
reporter.pipe(process.stdout);
reporter.on('end', () => {
  if (process.env.LANEGATE_TEST_TIMES) writeFileSync(process.env.LANEGATE_TEST_TIMES, `${JSON.stringify(times, null, 2)}\n`);
  process.exitCode = totals.fail + totals.cancelled > 0 || totals.tests === 0 ? 1 : 0;
});
