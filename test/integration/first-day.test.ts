import assert from 'node:assert/strict';
import { copyFileSync, cpSync, existsSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { execa } from 'execa';
import { CLI, ROOT, tempDir } from '../helpers/gateway.js';
import { modernPost } from '../helpers/mcp.js';

/** `lanegate serve` in `cwd` with no --policy, until its start screen is printed; returns it and a stop. */
const serveIn = async (cwd: string): Promise<{ out: string; stop: () => Promise<void> }> => {
  const proc = execa(process.execPath, [CLI, 'serve', '--port', '0'], {
    cwd,
    reject: false,
    buffer: false,
    env: { LANEGATE_LOG_LEVEL: 'warn', LANEGATE_POLICY: '' },
  });
  let out = '';
  proc.stdout?.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no start screen:\n${out}`)), 30_000);
    proc.stdout?.on('data', (c: string) => {
      out += c;
      if (out.includes('Ctrl-C stops')) {
        clearTimeout(t);
        resolve();
      }
    });
  });
  return {
    out,
    stop: async () => {
      proc.kill('SIGTERM');
      await proc;
    },
  };
};

/** The CLI as an operator runs it, from a directory of their own, with no --policy. */
const run = (args: string[], cwd: string, env: Record<string, string> = {}) =>
  execa(process.execPath, [CLI, ...args], { reject: false, cwd, env: { LANEGATE_LOG_LEVEL: 'warn', LANEGATE_POLICY: '', ...env } });

describe("the operator's first day: the command, the policy, init", () => {
  it('package.json bin names a committed, executable launcher that builds dist/ when a fresh clone has none', async () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    const bin = path.join(ROOT, pkg.bin.lanegate ?? '');
    assert.ok(!bin.includes(`${path.sep}dist${path.sep}`), 'the bin exists before any build');
    assert.ok((statSync(bin).mode & 0o111) !== 0, 'npx runs the bin directly: it must be executable');
    // A clone after `npm install`: sources and node_modules, no dist/.
    const clone = tempDir('clone');
    // The launcher lives in src/ (the top level is fixed): the clone gets its own copy of src/.
    cpSync(path.join(ROOT, 'src'), path.join(clone, 'src'), { recursive: true });
    copyFileSync(path.join(ROOT, 'package.json'), path.join(clone, 'package.json'));
    for (const d of ['node_modules', 'policies']) symlinkSync(path.join(ROOT, d), path.join(clone, d));
    const r = await execa(process.execPath, [path.join(clone, 'src/bin/lanegate.js'), '--version'], { reject: false, cwd: clone });
    assert.equal(r.exitCode, 0, String(r.stderr));
    assert.equal(String(r.stdout).trim(), JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version);
    assert.match(String(r.stderr), /building dist/);
    assert.ok(existsSync(path.join(clone, 'dist/cli/main.js')));
    // Built once: the next run goes straight to it.
    const again = await execa(process.execPath, [path.join(clone, 'src/bin/lanegate.js'), '--help'], { reject: false, cwd: clone });
    assert.equal(again.exitCode, 0);
    assert.doesNotMatch(String(again.stderr), /building/);
    assert.match(String(again.stdout), /Usage: lanegate/);
    // `npm link` / `npm install -g`: a `lanegate` on the PATH pointing at the launcher; advice names it so.
    const bindir = tempDir('pathbin');
    symlinkSync(path.join(clone, 'src/bin/lanegate.js'), path.join(bindir, 'lanegate'));
    const work = tempDir('linked');
    const linked = await execa('lanegate', ['init'], {
      reject: false,
      cwd: work,
      env: { PATH: `${bindir}${path.delimiter}${process.env.PATH ?? ''}`, npm_command: '', LANEGATE_LOG_LEVEL: 'warn' },
    });
    assert.equal(linked.exitCode, 0, String(linked.stderr));
    assert.match(String(linked.stdout), /^ {2}lanegate check/m, 'run from the PATH, the advice says lanegate');
  });

  it('`npx lanegate` runs in the clone', async () => {
    const r = await execa('npx', ['--offline', 'lanegate', '--version'], { reject: false, cwd: ROOT });
    assert.equal(r.exitCode, 0, String(r.stderr));
    assert.match(String(r.stdout), /^\d+\.\d+\.\d+/);
  });

  it('without --policy: LANEGATE_POLICY, then ./lanegate.yaml; with none, the remedy (and nothing is created)', async () => {
    const dir = tempDir('nopolicy');
    const none = await run(['check'], dir);
    assert.equal(none.exitCode, 1);
    assert.match(String(none.stderr), /no policy found: looked for \$LANEGATE_POLICY, then \.\/lanegate\.yaml/);
    assert.match(String(none.stderr), /--policy FILE/);
    assert.match(String(none.stderr), /lanegate init/);
    assert.doesNotMatch(String(none.stderr), /ENOENT/);
    const init = await run(['init'], dir);
    assert.equal(init.exitCode, 0, String(init.stderr));
    assert.match(String((await run(['check'], dir)).stdout), /^lanegate\.yaml: ok/);
    // The environment names a policy elsewhere: that one wins over ./lanegate.yaml.
    const other = tempDir('envpolicy');
    await run(['init', other], dir);
    const env = await run(['check'], dir, { LANEGATE_POLICY: path.join(other, 'lanegate.yaml') });
    assert.match(String(env.stdout), new RegExp(`^${path.join(other, 'lanegate.yaml')}: ok`));
  });

  it('init [DIR] writes a commented starter that passes check, its state dir and key, prints three next commands; never overwrites', async () => {
    const base = tempDir('init');
    const r = await run(['init', 'gw'], base);
    assert.equal(r.exitCode, 0, String(r.stderr));
    const file = path.join(base, 'gw/lanegate.yaml');
    const text = readFileSync(file, 'utf8');
    assert.match(text, /kind: shared/);
    assert.match(text, /kind: principal/);
    assert.ok((text.match(/^\s*#/gm) ?? []).length >= 8, 'commented');
    assert.equal((statSync(path.join(base, 'gw/.lanegate')).mode & 0o777).toString(8), '700');
    assert.ok(existsSync(path.join(base, 'gw/.lanegate/keys')));
    const next = String(r.stdout).split('Next:\n')[1]?.trim().split('\n') ?? [];
    assert.equal(next.length, 3);
    for (const l of next) assert.match(l.trim(), /^npx lanegate .*--policy gw\/lanegate\.yaml/);
    const check = await run(['check', '--policy', file], base);
    assert.equal(check.exitCode, 0, String(check.stderr));
    assert.match(String(check.stdout), /2 trust domains, 1 servers, 1 lanes/);
    // Refuses to overwrite, and says so.
    writeFileSync(file, '# mine\n');
    const again = await run(['init', 'gw'], base);
    assert.equal(again.exitCode, 1);
    assert.match(String(again.stderr), /exists; lanegate init never overwrites/);
    assert.equal(readFileSync(file, 'utf8'), '# mine\n');
  });

  it('empty folder -> init -> serve: the start screen names the dashboard, the operator token file and the client formats; a client connects from the printed config', async () => {
    const dir = tempDir('firstserve');
    assert.equal((await run(['init'], dir)).exitCode, 0);
    const first = await serveIn(dir);
    let origin = '';
    try {
      origin = /serving (http:\/\/\S+)\/mcp/.exec(first.out)?.[1] ?? '';
      assert.ok(origin, first.out);
      assert.match(first.out, new RegExp(`dashboard: ${origin}/dashboard`));
      assert.match(
        first.out,
        /operator token \(for \/metrics, \/api, \/dashboard; also in \S+\/\.lanegate\/keys\/operator\.token, 0600\): lgo_/,
      );
      assert.match(first.out, /npx lanegate token issue --lane LANE --format json\|claude\|codex/);
      // The printed config for lane "main", pasted into a client: its URL and header work.
      const url = /"url": "(http:[^"]+)"/.exec(first.out)?.[1] ?? '';
      const token = /"Authorization": "Bearer ([^"]+)"/.exec(first.out)?.[1] ?? '';
      const list = await modernPost(url, token, 1, 'tools/list');
      assert.equal(list.status, 200);
      const names = ((list.json?.result as { tools?: { name: string }[] } | undefined)?.tools ?? []).map((t) => t.name);
      assert.ok(names.includes('every_echo'), names.join(', '));
    } finally {
      await first.stop();
    }
    const second = await serveIn(dir);
    await second.stop();
    assert.match(second.out, /operator token \(for \/metrics, \/api, \/dashboard\): in \S+\/\.lanegate\/keys\/operator\.token \(0600\)/);
    assert.doesNotMatch(second.out, /lgo_/, 'printed once, when made');
  });
});
