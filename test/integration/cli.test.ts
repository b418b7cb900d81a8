import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import path from 'node:path';
import { describe, it } from 'node:test';
import { execa } from 'execa';
import { cli, policyHead, ROOT, startGateway, tempDir } from '../helpers/gateway.js';

/** The commands the README's CLI block lists: `serve`, `token issue`, `key list`, … */
const readmeCommands = (): string[] => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const block = /## CLI\n\n(?:[^`\n][^\n]*\n\n)?```\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  return block
    .split('\n')
    .filter((l) => l.startsWith('lanegate '))
    .map((l) => {
      const [, a, b] = l.split(/\s+/);
      return a === 'token' || a === 'key' ? `${a} ${b}` : (a ?? '');
    });
};

/** The commands `--help` lists (a group's subcommands from its own --help). */
const helpCommands = async (args: string[] = []): Promise<string[]> => {
  const out = String((await cli([...args, '--help'])).stdout);
  const names = [...(/Commands:\n([\s\S]*)/.exec(out)?.[1] ?? '').matchAll(/^ {2}([a-z-]+)/gm)]
    .map((m) => m[1] ?? '')
    .filter((n) => n !== 'help');
  const full: string[] = [];
  for (const n of names) {
    if (n === 'token' || n === 'key') full.push(...(await helpCommands([n])).map((s) => `${n} ${s}`));
    else full.push(n);
  }
  return full;
};

describe('the CLI behaves as Node operators expect', () => {
  it('--version prints the package version; no arguments prints the usage; both exit 0', async () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const v = await cli(['--version']);
    assert.equal(v.exitCode, 0);
    assert.equal(String(v.stdout).trim(), pkg.version);
    const none = await cli([]);
    assert.equal(none.exitCode, 0);
    assert.match(String(none.stdout), /Usage: lanegate/);
  });

  it("the README's command list is exactly what --help lists", async () => {
    assert.deepEqual((await helpCommands()).sort(), readmeCommands().sort());
  });

  it('every command has its own --help, with its options and an example, exit 0', async () => {
    for (const cmd of readmeCommands()) {
      const r = await cli([...cmd.split(' '), '--help']);
      assert.equal(r.exitCode, 0, cmd);
      assert.match(String(r.stdout), new RegExp(`Usage: lanegate ${cmd}`), cmd);
      assert.match(String(r.stdout), /Example/, `${cmd} shows an example`);
    }
    const scan = await cli(['scan', '--help']);
    assert.doesNotMatch(String(scan.stderr), /ENOENT|--help/, 'scan --help is help, not a file named --help');
  });

  it('usage errors exit 2 with one line and the nearest command; failures exit 1', async () => {
    const typo = await cli(['revew']);
    assert.equal(typo.exitCode, 2);
    assert.match(String(typo.stderr), /unknown command 'revew'\n\(Did you mean review\?\)/);
    const opt = await cli(['schema', '--json']);
    assert.equal(opt.exitCode, 2, 'schema takes no --json');
    assert.match(String(opt.stderr), /unknown option '--json'/);
    const missing = await cli(['token', 'issue']);
    assert.equal(missing.exitCode, 2);
    assert.match(String(missing.stderr), /token issue needs --lane <lane> or --all/);
    const format = await cli(['token', 'issue', '--lane', 'x', '--format', 'yaml']);
    assert.equal(format.exitCode, 2);
    assert.match(String(format.stderr), /Allowed choices are json, claude, codex, vscode, cursor, windsurf, gemini/);
    const level = await cli(['serve', '--log-level', 'loud']);
    assert.equal(level.exitCode, 2);
    assert.match(String(level.stderr), /Allowed choices are trace, debug, info, warn, error, fatal/);
    const group = await cli(['token']);
    assert.equal(group.exitCode, 2, 'a command group without its subcommand is a usage error');
    const failure = await cli(['check', '--policy', path.join(ROOT, 'no-such-policy.yaml')]);
    assert.equal(failure.exitCode, 1);
  });

  it('a start that fails to bind its port leaves no operator token behind; the next start prints one', async () => {
    const dir = tempDir('bind');
    const policyFile = path.join(dir, 'policy.yaml');
    writeFileSync(policyFile, `${policyHead()}trustDomains: { public: { kind: shared } }\n`);
    const busy = createServer();
    const port = await new Promise<number>((resolve) => busy.listen(0, '127.0.0.1', () => resolve((busy.address() as AddressInfo).port)));
    try {
      const failed = await cli(['serve', '--policy', policyFile, '--port', String(port), '--no-lane-configs'], { cwd: dir });
      assert.equal(failed.exitCode, 1);
      assert.match(String(failed.stderr), /EADDRINUSE/);
      assert.ok(!existsSync(path.join(dir, 'state/keys/operator.token')), 'no token file from a start that never served');
    } finally {
      busy.close();
    }
    const gw = await startGateway(readFileSync(policyFile, 'utf8'), { dir });
    try {
      assert.match(gw.operatorToken, /^lgo_/);
      assert.equal(readFileSync(path.join(dir, 'state/keys/operator.token'), 'utf8').trim(), gw.operatorToken);
    } finally {
      await gw.stop();
    }
  });

  it('serve prints every lane a ready-to-paste config, from one token process', async () => {
    const dir = tempDir('configs');
    const policyFile = path.join(dir, 'policy.yaml');
    writeFileSync(
      policyFile,
      `${policyHead()}trustDomains: { public: { kind: shared } }\nlanes:\n  one: {}\n  two: {}\n  off: { enabled: false }\n`,
    );
    const proc = execa(process.execPath, [path.join(ROOT, 'dist/cli/main.js'), 'serve', '--policy', policyFile, '--port', '0'], {
      cwd: dir,
      reject: false,
      buffer: false,
    });
    let out = '';
    proc.stdout?.setEncoding('utf8');
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no configs printed:\n${out}`)), 20_000);
      proc.stdout?.on('data', (c: string) => {
        out += c;
        if (out.includes('Ctrl-C stops')) {
          clearTimeout(t);
          resolve();
        }
      });
    });
    proc.kill('SIGTERM');
    await proc;
    assert.deepEqual(
      [...out.matchAll(/^# lane "([a-z]+)"/gm)].map((m) => m[1]),
      ['one', 'two'],
      'enabled lanes only, each once',
    );
    assert.equal((out.match(/"Authorization": "Bearer eyJ/g) ?? []).length, 2);
  });
});
