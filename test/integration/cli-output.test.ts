import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { cli, EVERYTHING, policyHead, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { modernPost } from '../helpers/mcp.js';
import { waitFor } from '../helpers/procs.js';

const POLICY = `${policyHead()}trustDomains: { public: { kind: shared } }
servers:
  # the reference server, kept as an operator wrote it
  everything:
    prefix: every
    domain: public      # no credential
    stdio:
      command: node
      args: ["${EVERYTHING}", "stdio"]
lanes:
  one: { servers: [everything] }   # a comment that must survive --write
`;

describe('human output by default, --json on request; draft-probe pastes as is', () => {
  let gw: RunningGateway;
  const run = (...args: string[]) => cli([...args, '--policy', gw.policyFile, '--url', gw.url]);
  before(async () => {
    gw = await startGateway(POLICY);
    // The lane uses the server once: its surface is recorded for draft-probe.
    await modernPost(gw.url, await gw.token('one'), 1, 'tools/list');
  });
  after(() => gw.stop());

  it('reload says what changed in words; --json is the API answer', async () => {
    const human = await run('reload');
    assert.equal(human.exitCode, 0, String(human.stderr));
    assert.match(String(human.stdout), /^reloaded .*policy\.yaml: no session ended\n {2}host public: unchanged$/);
    assert.doesNotMatch(String(human.stdout), /[{}"]/, 'no raw JSON');
    const json = await run('reload', '--json');
    assert.equal(json.exitCode, 0);
    const body = JSON.parse(String(json.stdout)) as { ok: boolean; changes: { sessionsEnded: number } };
    assert.equal(body.ok, true);
    assert.equal(body.changes.sessionsEnded, 0);
  });

  it('measure prints words (and no bar with --json); key rotate --json is one JSON object', async () => {
    const m = await run('measure', '--json');
    assert.equal(m.exitCode, 0, String(m.stderr));
    const p = JSON.parse(String(m.stdout)) as { running: boolean; total: number };
    assert.equal(p.running, false);
    assert.equal(String(m.stderr), '', 'no progress bar');
    const h = await run('measure');
    assert.match(String(h.stdout), /measured|no server was measured/);
    assert.doesNotMatch(String(h.stdout), /[{}]/);
    const k = await cli(['key', 'rotate', '--json', '--policy', gw.policyFile]);
    assert.equal(k.exitCode, 0);
    const r = JSON.parse(String(k.stdout)) as { kid: string; retired: { kid: string; acceptedUntil: string }[] };
    assert.match(r.kid, /^\d{8}T\d{6}-[0-9a-f]{8}$/);
    assert.ok(r.retired.length >= 1);
    assert.match(String((await cli(['key', 'rotate', '--policy', gw.policyFile])).stdout), /^new signing key \S+: /);
  });

  it('draft-probe prints a block indented for servers.NAME; pasted there as is, the policy passes check', async () => {
    await waitFor(() => readFileSync(`${gw.stateDir}/records/guard.json`, 'utf8').includes('"everything"'), 5000);
    const r = await cli(['draft-probe', 'everything', '--policy', gw.policyFile]);
    assert.equal(r.exitCode, 0, String(r.stderr));
    const block = `${String(r.stdout)}\n`; // as printed (execa strips the final newline)
    assert.match(block, /^ {4}# Proposed probe/);
    assert.match(block, /^ {4}probe:\n {6}- tool: /m);
    // Paste: right after the server's last line.
    const text = readFileSync(gw.policyFile, 'utf8');
    const anchor = `      args: ["${EVERYTHING}", "stdio"]\n`;
    const pasted = text.replace(anchor, `${anchor}${block}`);
    const copy = `${gw.dir}/pasted.yaml`;
    writeFileSync(copy, pasted);
    const c = await cli(['check', '--policy', copy]);
    assert.equal(c.exitCode, 0, String(c.stderr));
  });

  it('draft-probe --write puts it into the policy, every other byte (comments too) kept; a second --write refuses', async () => {
    const before = readFileSync(gw.policyFile, 'utf8');
    const w = await cli(['draft-probe', 'everything', '--write', '--policy', gw.policyFile]);
    assert.equal(w.exitCode, 0, String(w.stderr));
    const after = readFileSync(gw.policyFile, 'utf8');
    const added = after.split('\n').filter((l, i, all) => !before.split('\n').includes(l) || all.indexOf(l) !== i);
    assert.ok(added[0]?.startsWith('    probe:'), added.join('\n'));
    assert.equal(after.replace(/^ {4}probe:\n(?: {6}.*\n)+/m, ''), before, 'only the probe block was added');
    assert.match(after, /# a comment that must survive --write/);
    assert.equal((await cli(['check', '--policy', gw.policyFile])).exitCode, 0);
    const again = await cli(['draft-probe', 'everything', '--write', '--policy', gw.policyFile]);
    assert.equal(again.exitCode, 1);
    assert.match(String(again.stderr), /already has a probe/);
  });
});
