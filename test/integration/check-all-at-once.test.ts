import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cli, FIXTURE, policyHead, type RunningGateway, startGateway, tempDir } from '../helpers/gateway.js';
import { modernPost, textOf } from '../helpers/mcp.js';
import { waitFor } from '../helpers/procs.js';

const MISSPELLED = path.join(path.dirname(FIXTURE), 'fixtrue.mjs');

describe('check reports every problem at once; a server that cannot start says why', () => {
  it('three different mistakes (a key typo, a command off the allowlist, a misspelled script): all three, each at file:line:col', async () => {
    const dir = tempDir('three');
    const f = path.join(dir, 'policy.yaml');
    writeFileSync(
      f,
      `${policyHead()}trustDomains: { public: { kind: shared } }
servers:
  a: { prefix: a, domain: public, shrae: never, stdio: { command: node, args: ["${FIXTURE}"] } }
  b: { prefix: b, domain: public, stdio: { command: bash, args: ["-c", "id"] } }
  c: { prefix: c, domain: public, stdio: { command: node, args: ["${MISSPELLED}"] } }
lanes:
  one: { servers: [a, b] }
  two: { servers: [b, c] }
`,
    );
    const r = await cli(['check', '--policy', f]);
    assert.equal(r.exitCode, 1);
    const err = String(r.stderr);
    const at = (re: RegExp): RegExpExecArray | null =>
      new RegExp(`^${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:(\\d+):(\\d+)  ${re.source}`, 'm').exec(err);
    assert.equal(at(/servers\.a\.shrae {2}Unrecognized key: "shrae"/)?.[1], '10', err);
    assert.equal(at(/servers\.b\.stdio\.command {2}layer one \(structural\): command "bash" is not on the allowlist/)?.[1], '11', err);
    assert.equal(at(/servers\.c\.stdio\.args\[0\] {2}warning: ".*fixtrue\.mjs" does not exist/)?.[1], '12', err);
    assert.match(err, /REFUSED upstream "b" at policy load \(lanes: one, two\)/, 'the refused server names the lanes that use it');
    assert.match(err, /2 problem\(s\) and 1 warning\(s\)/);
    // The typo fixed, the rest is still reported in the same run (not one class per run).
    writeFileSync(
      f,
      `${policyHead()}trustDomains: { public: { kind: shared } }
servers:
  c: { prefix: c, domain: public, stdio: { command: node, args: ["${MISSPELLED}"] } }
lanes:
  two: { servers: [c] }
`,
    );
    const only = await cli(['check', '--policy', f]);
    assert.equal(only.exitCode, 1, 'a missing script fails check, though serve would start');
    assert.match(String(only.stderr), /warning: ".*fixtrue\.mjs" does not exist: server "c" would fail to start/);
  });

  it('check --launch starts each server once, lists its surface, stops it; the broken one fails with its own stderr line', async () => {
    const dir = tempDir('launch');
    const f = path.join(dir, 'policy.yaml');
    writeFileSync(
      f,
      `${policyHead()}trustDomains: { public: { kind: shared } }
servers:
  fix: { prefix: fix, domain: public, stdio: { command: node, args: ["${FIXTURE}"] } }
  bad: { prefix: bad, domain: public, stdio: { command: node, args: ["${MISSPELLED}"] } }
lanes:
  one: { servers: [fix, bad] }
`,
    );
    const r = await cli(['check', '--launch', '--policy', f]);
    assert.equal(r.exitCode, 1);
    const out = String(r.stdout);
    assert.match(out, /ok +fix +pid \d+, \d+ tools/);
    assert.match(out, /FAIL +bad +initialize failed: .*its stderr: Error: Cannot find module '.*fixtrue\.mjs'/);
    const pid = Number(/ok +fix +pid (\d+)/.exec(out)?.[1]);
    assert.throws(() => process.kill(pid, 0), 'the server was stopped');
  });
});

describe('a server with a misspelled script, at run time', () => {
  let gw: RunningGateway;
  let t: string;
  before(async () => {
    gw = await startGateway(`${policyHead()}trustDomains: { public: { kind: shared } }
servers:
  fix: { prefix: fix, domain: public, stdio: { command: node, args: ["${FIXTURE}"] } }
  bad: { prefix: bad, domain: public, stdio: { command: node, args: ["${MISSPELLED}"] } }
lanes:
  one: { servers: [fix, bad] }
`);
    t = await gw.token('one');
  });
  after(() => gw.stop());

  it("logs its stderr tail at warn; status and lanegate_status show the child's own line", async () => {
    await modernPost(gw.url, t, 1, 'tools/list');
    const logged = await waitFor(
      () =>
        gw
          .stderr()
          .split('\n')
          .find((l) => l.includes('"event":"upstream_start_failed"') && l.includes('"server":"bad"')),
      10_000,
    );
    assert.ok(logged, gw.stderr());
    assert.match(logged ?? '', /"level":(40|"warn")/, 'at warn, not info');
    assert.match(logged ?? '', /Cannot find module/);
    const status = await cli(['status', '--policy', gw.policyFile, '--url', gw.url]);
    assert.equal(status.exitCode, 0, String(status.stderr));
    assert.match(
      String(status.stdout),
      /failing to start or crashed: \n {2}bad (\(lane one\) )?failed to start at \S+: .*failed: .*its stderr: Error: Cannot find module/,
    );
    const s = await modernPost(gw.url, t, 2, 'tools/call', { name: 'lanegate_status', arguments: {} });
    assert.match(textOf(s.json?.result), /Cannot find module/);
    assert.match(textOf(s.json?.result), /check --launch/);
  });
});
