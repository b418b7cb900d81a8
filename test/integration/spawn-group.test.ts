import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { GROUP_SWEEP_MS, spawnPiped, stopPiped } from '../../src/supervision/spawn.js';
import { alive, killLeftovers, waitFor } from '../helpers/procs.js';

/**
 * A stdio upstream runs in a process group of its own: what it starts (npx's server, a script's
 * program, a server's helpers) is stopped with it, never left running orphaned. Real processes: a
 * shell leads the group and starts a node helper that ignores SIGTERM.
 */
const HELPER = `${JSON.stringify(process.execPath)} -e "process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000)"`;

/** Gone within `ms` (a zombie counts as gone: an orphan is reaped by whatever adopted it, maybe late). */
const gone = async (pid: number, ms: number): Promise<boolean> => waitFor(() => !alive(pid), ms, 50);

/**
 * A shell that starts the helper in the background, says its pid, then waits for a line (or runs
 * `script`); returned once the helper says it ignores SIGTERM (a signal before that would end it).
 */
/** Every shell and helper started here, for the after() hook: a failed case must not leave one holding the run open. */
const started = new Set<number>();

const start = async (script = 'read line || true'): Promise<{ p: ReturnType<typeof spawnPiped>; helper: number }> => {
  const p = spawnPiped('/bin/sh', ['-c', `${HELPER} & echo $!; ${script}`], {
    env: { PATH: '/usr/bin:/bin' },
    stderr: 'pipe',
    group: true,
  });
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
  if (p.pid !== undefined) started.add(p.pid);
  assert.ok(helper > 0 && alive(helper), `the helper runs (${said})`);
  return { p, helper };
};

describe('a stdio upstream in a process group of its own', { skip: process.platform !== 'linux' }, () => {
  after(() => killLeftovers(started));
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
    // The shell ignores SIGTERM too: only a signal to the group's every member ends the helper.
    const { p, helper } = await start("trap '' TERM; read line || true");
    p.kill('SIGKILL');
    await p.exited;
    // At once: not after the sweep's second (that is what a kill of the leader alone would come to).
    assert.ok(await gone(helper, GROUP_SWEEP_MS / 2), 'the helper is gone with its leader');
  });
});
