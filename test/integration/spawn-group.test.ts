import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, describe, it } from 'node:test';
import { GROUP_SWEEP_MS, groupOf, settleSweeps, signalGroup } from '../../src/supervision/process-groups.js';
import { spawnPiped, stopPiped } from '../../src/supervision/spawn.js';
import { alive, killLeftovers, waitFor } from '../helpers/procs.js';

/**
 * A stdio upstream runs in a process group of its own: what it starts (npx's server, a script's
 * program, a server's helpers) is stopped with it, never left running orphaned. Real processes: a
 * shell leads the group and starts a node helper that ignores SIGTERM.
 */
const HELPER = `${JSON.stringify(process.execPath)} -e "process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000)"`;

const run = promisify(execFile);

/** Gone within `ms` (a zombie counts as gone: an orphan is reaped by whatever adopted it, maybe late). */
const gone = async (pid: number, ms: number): Promise<boolean> => waitFor(() => !alive(pid), ms, 50);

/**
 * What was started here, for the after() hook (a failed case must not leave a process holding the
 * run open): helpers by pid, and the leaders of groups, whose whole group is killed.
 */
const started = new Set<number>();
const leaders = new Set<number>();
const killLeaders = (): void => {
  for (const pid of leaders) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
};

/**
 * A shell that starts the helper in the background, says its pid, then waits for a line; returned
 * once the helper says it ignores SIGTERM (a signal before that would end it).
 */
const start = async (): Promise<{ p: ReturnType<typeof spawnPiped>; helper: number }> => {
  const p = spawnPiped('/bin/sh', ['-c', `${HELPER} & echo $!; read line || true`], {
    env: { PATH: '/usr/bin:/bin' },
    stderr: 'pipe',
    group: true,
  });
  if (p.pid !== undefined) leaders.add(p.pid);
  let said = '';
  await new Promise<void>((resolve, reject) => {
    p.stdout.on('data', (b: Buffer) => {
      said += b.toString();
      if (said.includes('ready')) resolve();
    });
    p.exited.then(() => reject(new Error(`the shell ended first: ${said}`)));
  });
  const helper = Number(said.split('\n')[0]);
  started.add(helper);
  assert.ok(helper > 0 && alive(helper), `the helper runs (${said})`);
  return { p, helper };
};

describe('a stdio upstream in a process group of its own', { skip: process.platform !== 'linux', timeout: 30_000 }, () => {
  after(() => {
    killLeaders();
    killLeftovers(started);
  });
  it('leads its own group', async () => {
    const { p, helper } = await start();
    // The helper is in the leader's group, not in ours.
    const pgid = (pid: number): string => {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2] as string;
    };
    assert.equal(pgid(helper), String(p.pid));
    assert.notEqual(pgid(process.pid), String(p.pid));
    await stopPiped(p, 0, 500);
    assert.ok(await gone(helper, GROUP_SWEEP_MS + 2000));
  });

  it('a leader that exits by itself (its input closed) leaves nothing running', async () => {
    const { p, helper } = await start();
    p.stdin.end();
    const exit = await p.exited;
    assert.equal(exit.exitCode, 0, 'the shell ended on its own, no signal');
    // The helper ignores the sweep's SIGTERM: the SIGKILL a second later ends it.
    assert.ok(alive(helper), 'still there the moment its leader ends');
    assert.ok(await gone(helper, GROUP_SWEEP_MS + 2000), 'the helper is stopped after its leader');
  });

  it('a kill reaches the whole group, not only its leader', async () => {
    const { p, helper } = await start();
    p.kill('SIGKILL');
    await p.exited;
    // At once: not after the sweep's second (that is what a kill of the leader alone would come to).
    assert.ok(await gone(helper, GROUP_SWEEP_MS / 2), 'the helper is gone with its leader');
  });

  it("a host's SIGKILL sweeps the groups its children lead (what they started would outlive it)", async () => {
    // A stand-in host is a real node process: it starts a shell in a group of its own (as a host
    // starts a stdio child), whose helper ignores SIGTERM; its output comes straight to us.
    const host = `require('node:child_process').spawn('/bin/sh', ['-c', ${JSON.stringify(`${HELPER} & echo $! $$; read line || true`)}], { detached: true, stdio: ['pipe', 'inherit', 'inherit'] }); setInterval(() => {}, 1000);`;
    const p = spawnPiped(process.execPath, ['-e', host], { env: { PATH: '/usr/bin:/bin' }, stderr: 'pipe', sweepChildGroups: true });
    if (p.pid !== undefined) started.add(p.pid);
    let said = '';
    p.stdout.on('data', (b: Buffer) => {
      said += b.toString();
    });
    await waitFor(() => said.includes('ready'), 10_000, 20);
    const [helper, shell] = said.split('\n')[0]?.split(' ').map(Number) ?? [];
    assert.ok(helper && shell && alive(helper) && alive(shell), `the shell and its helper run (${said})`);
    started.add(helper);
    leaders.add(shell);
    p.kill('SIGKILL');
    await p.exited;
    // The shell's input closed with its host: it ends by itself; the helper gets the sweep's SIGTERM (ignored), then its SIGKILL.
    assert.ok(await gone(helper, GROUP_SWEEP_MS + 2000), 'the helper is stopped, though its host and its leader are gone');
    assert.ok(await gone(shell, 1000));
  });

  it('settleSweeps() resolves once what a leader left is stopped (a host waits for it before it exits)', async () => {
    const { p, helper } = await start();
    p.stdin.end();
    await p.exited;
    const t0 = Date.now();
    await settleSweeps();
    // Sent its SIGKILL by then (the kernel ends it a moment later): not the second a pending sweep still had to run.
    assert.ok(await gone(helper, 200), 'the helper is gone when the sweeps are settled');
    assert.ok(Date.now() - t0 < GROUP_SWEEP_MS + 1000);
  });

  it('a process that exits while a sweep is under way kills what is left at once', async () => {
    // Its own process (tsx runs the source): spawnPiped, the leader ends by itself, then exit at once.
    const spawnTs = fileURLToPath(new URL('../../src/supervision/spawn.ts', import.meta.url));
    const script = `import { spawnPiped } from ${JSON.stringify(spawnTs)};
const p = spawnPiped('/bin/sh', ['-c', ${JSON.stringify(`${HELPER} & echo $!; read line || true`)}], { env: { PATH: '/usr/bin:/bin' }, stderr: 'pipe', group: true });
let said = '';
p.stdout.on('data', (b) => {
  said += b;
  if (!said.includes('ready')) return;
  process.stdout.write(said.split('\\n')[0]);
  p.stdin.end();
  p.exited.then(() => process.exit(0));
});`;
    const { stdout: out } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    const helper = Number(out.trim());
    assert.ok(helper > 0, out);
    started.add(helper);
    // At once: its exit hook sent the SIGKILL the sweep's timer never got to.
    assert.ok(await gone(helper, 300), 'the helper was killed as its starter exited');
  });

  it('a group id whose leader pid now names another process (reused) is never signalled', async () => {
    const { p, helper } = await start();
    const real = groupOf(p.pid as number);
    assert.ok(real.start, 'the start time is read from /proc');
    // The same pid with another start time: what a pid given to a new process looks like.
    assert.equal(signalGroup({ id: real.id, start: `${real.start}0` }, 'SIGKILL'), false);
    assert.ok(alive(helper) && alive(real.id), 'nothing was signalled');
    assert.equal(signalGroup(real, 0), true, 'the group itself is ours');
    await stopPiped(p, 0, 500);
  });
});
