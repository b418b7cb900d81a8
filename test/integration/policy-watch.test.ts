import assert from 'node:assert/strict';
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { FIXTURE, type RunningGateway, startGateway, tempDir } from '../helpers/gateway.js';
import { modernPost, textOf } from '../helpers/mcp.js';
import { waitFor } from '../helpers/procs.js';

const policy = (stateDir: string, lanes: string[], extra = '') => `version: 1
gateway:
  listen: 127.0.0.1:8750
  stateDir: ${stateDir}
commands:
  node: { path: "{node}" }
trustDomains:
  public: { kind: shared }
servers:
  good: { prefix: good, domain: public, stdio: { command: node, args: ["${FIXTURE}"] } }
lanes:
${lanes.map((l) => `  ${l}: { servers: [good] }\n`).join('')}${extra}`;

const echo = async (gw: RunningGateway, token: string, text: string): Promise<{ status: number; text: string }> => {
  const r = await modernPost(gw.url, token, 1, 'tools/call', { name: 'good_echo', arguments: { text } });
  return { status: r.status, text: textOf(r.json?.result ?? {}) };
};

/** Waits until a lane's token is admitted and its call answered (a lane the running policy does not have gets 403). */
const served = (gw: RunningGateway, token: string): Promise<boolean> =>
  waitFor(async () => (await echo(gw, token, 'x')).text === 'x', 15_000, 100);

describe('serve --watch: policy edits apply by themselves; a broken one is refused and the old policy keeps serving', () => {
  const running: RunningGateway[] = [];
  after(async () => {
    for (const g of running) await g.stop();
  });

  it('an edited file (a lane added) applies with no command; a broken edit is refused with its problems logged', async () => {
    const dir = tempDir('watch');
    const state = path.join(dir, 'state');
    writeFileSync(path.join(dir, 'policy.yaml'), policy(state, ['a']));
    const gw = await startGateway('', { dir, policyPath: 'policy.yaml', serveArgs: ['--watch'] });
    running.push(gw);
    const ta = await gw.token('a');
    assert.equal((await echo(gw, ta, 'first')).text, 'first');

    // A lane added to the file: its token (issued from the edited file) is served without reload or SIGHUP.
    writeFileSync(gw.policyFile, policy(state, ['a', 'b']));
    const tb = await gw.token('b');
    assert.ok(await served(gw, tb), `lane b served after the edit:\n${gw.stderr().slice(-2000)}`);
    assert.match(gw.stderr(), /policy file changed; reloading/);

    // A broken edit: refused, its problem logged, and both lanes keep being served.
    writeFileSync(gw.policyFile, policy(state, ['a', 'b'], '  c: { servers: [good], bogus: 1 }\n'));
    assert.ok(
      await waitFor(() => /reload_refused/.test(gw.stderr()), 15_000, 100),
      `the broken edit is refused:\n${gw.stderr().slice(-2000)}`,
    );
    assert.match(gw.stderr(), /bogus/, 'the problem is named in the log');
    assert.equal((await echo(gw, ta, 'still-a')).text, 'still-a');
    assert.equal((await echo(gw, tb, 'still-b')).text, 'still-b');

    // Fixed again: applies (lane b removed, so it is cut off).
    writeFileSync(gw.policyFile, policy(state, ['a']));
    assert.ok(await waitFor(async () => (await echo(gw, tb, 'y')).status === 401, 15_000, 100), 'lane b is cut off after the fix');
    assert.equal((await echo(gw, ta, 'after')).text, 'after');
  });

  it("a Kubernetes ConfigMap's atomic swap of its ..data symlink is picked up", async () => {
    const dir = tempDir('watch-cm');
    const state = path.join(dir, 'state');
    // The layout kubelet writes for a ConfigMap volume mounted as a directory.
    const vol = path.join(dir, 'config');
    mkdirSync(path.join(vol, '..2026_01_01_00_00_00.1'), { recursive: true });
    writeFileSync(path.join(vol, '..2026_01_01_00_00_00.1', 'policy.yaml'), policy(state, ['a']));
    symlinkSync('..2026_01_01_00_00_00.1', path.join(vol, '..data'));
    symlinkSync('..data/policy.yaml', path.join(vol, 'policy.yaml'));
    const gw = await startGateway('', { dir, policyPath: 'config/policy.yaml', serveArgs: ['--watch'] });
    running.push(gw);
    const ta = await gw.token('a');
    assert.equal((await echo(gw, ta, 'one')).text, 'one');

    // kubelet's update: a new timestamped dir, a ..data_tmp symlink to it renamed over ..data, the old dir removed.
    const next = path.join(vol, '..2026_01_01_00_01_00.2');
    mkdirSync(next);
    writeFileSync(path.join(next, 'policy.yaml'), policy(state, ['a', 'c']));
    symlinkSync('..2026_01_01_00_01_00.2', path.join(vol, '..data_tmp'));
    renameSync(path.join(vol, '..data_tmp'), path.join(vol, '..data'));
    rmSync(path.join(vol, '..2026_01_01_00_00_00.1'), { recursive: true });

    const tc = await gw.token('c');
    assert.ok(await served(gw, tc), `lane c served after the swap:\n${gw.stderr().slice(-2000)}`);
    assert.equal((await echo(gw, ta, 'two')).text, 'two');
  });
});
