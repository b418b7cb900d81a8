import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { grantedTtl, laneTask, MAX_TASK_TTL_MS, relatedTaskOf, TaskTable, withRelatedTask } from '../../src/host/task-table.js';

const make = () => {
  let t = 1_000;
  let n = 0;
  const table = new TaskTable<string>(
    () => t,
    () => {
      n += 1;
      return `r${n}`;
    },
  );
  const add = (lane: string, holder: string, conn = 'c1', upstreamId = 'up-1', ttlMs = 10_000) =>
    table.add({
      prefix: 'every',
      server: 'everything',
      childKey: `${lane}|legacy`,
      conn,
      lane,
      holder,
      task: { taskId: upstreamId, status: 'working' },
      ttlMs,
    });
  return { table, add, tick: (ms: number) => (t += ms) };
};

describe('the task table (pure)', () => {
  it("mints the lane's id under the server's prefix, and maps it to the upstream's on that child", () => {
    const { table, add } = make();
    const e = add('a', 's1');
    assert.equal(e.id, 'every_task-r1');
    assert.equal(e.upstreamId, 'up-1');
    assert.equal(table.byUpstream('everything', 'a|legacy', 'up-1'), e);
    // The same upstream id on another child is another task (or none).
    assert.equal(table.byUpstream('everything', 'b|legacy', 'up-1'), undefined);
    assert.equal(table.byUpstream('everything', 'a|legacy', 7), undefined);
  });

  it('a task belongs to its lane AND session: any other reads as not there', () => {
    const { table, add } = make();
    const e = add('a', 's1');
    assert.equal(table.owned(e.id, 'a', 's1'), e);
    assert.equal(table.owned(e.id, 'a', 's2'), undefined);
    assert.equal(table.owned(e.id, 'b', 's1'), undefined);
    assert.equal(table.owned('every_task-nope', 'a', 's1'), undefined);
    assert.deepEqual(table.ownedBy('a', 's1'), [e]);
    assert.deepEqual(table.ownedBy('a', 's2'), []);
    assert.deepEqual(table.openCounts('a', 's1'), { lane: 1, holder: 1 });
    const e2 = add('a', 's2', 'c1', 'up-2');
    assert.deepEqual(table.openCounts('a', 's1'), { lane: 2, holder: 1 }, 'a lane counts its sessions together');
    assert.deepEqual(table.openCounts('b', 's1'), { lane: 0, holder: 0 });
    // A settled task (result fetched or cancelled) frees its place, as the refusal tells the lane.
    e2.settled = true;
    assert.deepEqual(table.openCounts('a', 's2'), { lane: 1, holder: 0 });
  });

  it('expires at its ttl (capped), and then no longer keeps its child', () => {
    const { table, add, tick } = make();
    const e = add('a', 's1', 'c1', 'up-1', 5_000);
    assert.ok(table.holds('everything', 'a|legacy'));
    tick(5_000);
    assert.equal(table.owned(e.id, 'a', 's1'), undefined);
    assert.equal(table.holds('everything', 'a|legacy'), false);
    assert.equal(grantedTtl(undefined), MAX_TASK_TTL_MS);
    assert.equal(grantedTtl(null), MAX_TASK_TTL_MS);
    assert.equal(grantedTtl(10 * MAX_TASK_TTL_MS), MAX_TASK_TTL_MS);
    assert.equal(grantedTtl(60_000), 60_000);
    assert.equal(grantedTtl(-1), MAX_TASK_TTL_MS);
  });

  it('a settled task lets its child idle out', () => {
    const { table, add } = make();
    const e = add('a', 's1');
    e.settled = true;
    assert.equal(table.holds('everything', 'a|legacy'), false);
  });

  it("a child's exit fails its running tasks naming the server, keeps terminal ones terminal, and leaves other children's alone", () => {
    const { table, add } = make();
    const running = add('a', 's1', 'c1', 'up-1');
    const done = add('a', 's1', 'c1', 'up-2');
    table.observe(done, { taskId: 'up-2', status: 'completed' });
    const elsewhere = add('a', 's1', 'c2', 'up-3');
    const failed = table.childGone('c1', 'upstream "everything" crashed (signal SIGKILL) with the task outstanding');
    assert.deepEqual(failed, [running]);
    assert.equal(running.status, 'failed');
    assert.match(String(laneTask(running).statusMessage), /upstream "everything" crashed/);
    assert.equal(done.status, 'completed');
    assert.ok(done.gone);
    assert.equal(elsewhere.gone, undefined);
    assert.equal(table.byUpstream('everything', 'a|legacy', 'up-1'), undefined);
    assert.deepEqual(table.childGone('c1', 'again'), []);
  });

  it('a terminal status never changes', () => {
    const { table, add } = make();
    const e = add('a', 's1');
    table.observe(e, { status: 'cancelled' });
    table.observe(e, { status: 'completed' });
    assert.equal(e.status, 'cancelled');
    assert.equal(laneTask(e, { taskId: 'up-1', status: 'completed' }).status, 'cancelled');
  });

  it("shows the lane its own id, never the upstream's, and drops the upstream's _meta", () => {
    const { add } = make();
    const e = add('a', 's1');
    assert.deepEqual(laneTask(e, { taskId: 'up-1', status: 'working', ttl: 5, _meta: { x: 1 } }), {
      taskId: 'every_task-r1',
      status: 'working',
      ttl: 5,
    });
  });

  it('rewrites a related-task id in _meta, and only when there is one', () => {
    const rel = 'io.modelcontextprotocol/related-task';
    const p = { message: 'm', _meta: { [rel]: { taskId: 'up-1' }, other: 1 } };
    assert.equal(relatedTaskOf(p), 'up-1');
    assert.deepEqual(withRelatedTask(p, 'every_task-r1'), { message: 'm', _meta: { [rel]: { taskId: 'every_task-r1' }, other: 1 } });
    const none = { message: 'm' };
    assert.equal(withRelatedTask(none, 'x'), none);
    assert.equal(relatedTaskOf(none), undefined);
    assert.equal(withRelatedTask(undefined, 'x'), undefined);
  });
});
