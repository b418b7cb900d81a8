import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { cli, FIXTURE, tempDir } from '../helpers/gateway.js';

const write = (dir: string, body: string): string => {
  const f = path.join(dir, 'policy.yaml');
  writeFileSync(f, body);
  return f;
};

const BASE = (servers: string, extra = ''): string => `version: 1
gateway: { listen: 127.0.0.1:8750, stateDir: ./state }
commands:
  node: { path: "{node}" }
trustDomains:
  public: { kind: shared }
  mail: { kind: principal, secrets: { TOKEN: { file: ./secrets/missing.token } } }
servers:
${servers}
lanes:
  one: { servers: [a] }
${extra}`;

const cases: { label: string; servers: string; extra?: string; line: number; path: RegExp; message: RegExp }[] = [
  {
    label: 'duplicate prefix',
    servers: `  a: { prefix: same, domain: public, stdio: { command: node, args: ["${FIXTURE}"] } }\n  b: { prefix: same, domain: public, stdio: { command: node, args: ["${FIXTURE}"] } }`,
    line: 10,
    path: /servers\.b\.prefix/,
    message: /prefix "same" is already claimed by server "a"/,
  },
  {
    label: 'command off the allowlist',
    servers: `  a: { prefix: a, domain: public, stdio: { command: bash, args: ["-c", "id"] } }`,
    line: 9,
    path: /servers\.a\.stdio\.command/,
    message: /command "bash" is not on the allowlist/,
  },
  {
    label: 'shell metacharacter in args',
    servers: `  a:\n    prefix: a\n    domain: public\n    stdio:\n      command: node\n      args: ["${FIXTURE}", "x; rm -rf /"]`,
    line: 14,
    path: /servers\.a\.stdio\.args\[1\]/,
    message: /shell metacharacter ";" refused/,
  },
  {
    label: 'unknown key',
    servers: `  a: { prefix: a, domain: public, shrae: never, stdio: { command: node, args: ["${FIXTURE}"] } }`,
    line: 9,
    path: /servers\.a/,
    message: /[Uu]nrecognized key.*shrae/,
  },
  {
    label: 'dangling reference',
    servers: `  a: { prefix: a, domain: public, stdio: { command: node, args: ["${FIXTURE}"] } }`,
    extra: '  two: { servers: [a, ghost] }\n',
    line: 12,
    path: /lanes\.two\.servers\[1\]/,
    message: /server "ghost" is not declared/,
  },
  {
    label: 'unreadable secret file',
    servers: `  a: { prefix: a, domain: mail, stdio: { command: node, args: ["${FIXTURE}"] } }`,
    line: 7,
    path: /trustDomains\.mail\.secrets\.TOKEN\.file/,
    message: /secret file ".*missing\.token" is missing or unreadable/,
  },
];

describe('lanegate check names every bad policy with file:line, and serve refuses it', () => {
  for (const c of cases) {
    it(c.label, async () => {
      const dir = tempDir('check');
      const f = write(dir, BASE(c.servers, c.extra));
      const r = await cli(['check', '--policy', f]);
      assert.equal(r.exitCode, 1, String(r.stdout));
      const lines = String(r.stderr).split('\n');
      const hit = lines.find((l) => c.message.test(l));
      assert.ok(hit, `expected a problem matching ${c.message}:\n${String(r.stderr)}`);
      const m = /^(.+):(\d+):(\d+) {2}(\S+) {2}/.exec(hit ?? '');
      assert.ok(m, `file:line:col  path  message format: ${hit}`);
      assert.equal(m?.[1], f);
      assert.equal(Number(m?.[2]), c.line, hit);
      assert.match(m?.[4] ?? '', c.path);
      const s = await cli(['serve', '--policy', f, '--port', '0', '--no-lane-configs']);
      assert.notEqual(s.exitCode, 0, 'serve refuses to start');
      assert.match(String(s.stderr), c.message);
      assert.doesNotMatch(String(s.stdout), /serving/);
    });
  }

  it('reports every problem at once, not just the first', async () => {
    const dir = tempDir('check');
    const f = write(
      dir,
      BASE(
        `  a: { prefix: a, domain: nowhere, stdio: { command: sh, args: ["$(id)"] } }\n  b: { prefix: a, domain: public, stdio: { command: node, args: ["${FIXTURE}"] } }`,
      ),
    );
    const r = await cli(['check', '--policy', f]);
    assert.equal(r.exitCode, 1);
    const problems = String(r.stderr)
      .split('\n')
      .filter((l) => /:\d+:\d+ {2}/.test(l));
    assert.ok(problems.length >= 4, String(r.stderr));
  });

  it('a YAML syntax error is positioned too', async () => {
    const dir = tempDir('check');
    mkdirSync(dir, { recursive: true });
    const f = write(dir, 'version: 1\ntrustDomains: { public: { kind: shared }\n');
    const r = await cli(['check', '--policy', f]);
    assert.equal(r.exitCode, 1);
    assert.match(String(r.stderr), /policy\.yaml:\d+:\d+ {2}\(yaml\)/);
  });

  it('the default policy checks clean once its demo secret exists', async () => {
    const r = await cli(['init', '--policy', 'policies/default.yaml', '--demo-secrets']);
    assert.equal(r.exitCode, 0, String(r.stderr));
    const c = await cli(['check', '--policy', 'policies/default.yaml']);
    assert.equal(c.exitCode, 0, String(c.stderr));
    assert.match(String(c.stdout), /ok \(2 trust domains, 3 servers, 2 lanes/);
  });
});
