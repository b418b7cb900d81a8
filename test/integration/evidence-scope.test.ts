import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import {
  cli,
  everythingServer,
  measureThenRestart,
  operatorApi,
  policyHead,
  type RunningGateway,
  startGateway,
} from '../helpers/gateway.js';
import { connectClient, modernPost, textOf } from '../helpers/mcp.js';

// The default policy's everything server: demonstrated on echo and get-sum only.
const POLICY = `${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
${everythingServer()}lanes:
  a: { servers: [everything] }
  b: { servers: [everything] }
  c: { servers: [everything] }
  d: { servers: [everything] }
  e: { servers: [everything] }
  f: { servers: [everything] }
`;

interface Child {
  server: string;
  placement: string;
  lane?: string;
  lanes?: string[];
  pid: number;
}
interface Row {
  server: string;
  placement: string;
  scope: string[];
  live?: { sharedLanes: string[]; escalations: { lane: string; request: string }[] };
}

describe('the verdict is never wider than the evidence: a shared child runs only what was demonstrated', () => {
  let gw: RunningGateway;
  const clients: Record<string, Client> = {};
  const call = async (lane: string, name: string, args: Record<string, unknown> = {}): Promise<string> =>
    textOf(await (clients[lane] as Client).callTool({ name, arguments: args }));
  const children = async (): Promise<Child[]> =>
    ((await operatorApi(gw, '/api/processes')) as { hosts: Record<string, { children: Child[] }> }).hosts.public?.children.filter(
      (c) => c.server === 'everything',
    ) ?? [];

  before(async () => {
    gw = await measureThenRestart(await startGateway(POLICY));
    // a, b, c: handshake era; d, e, f: 2026-07-28. Real SDK clients.
    for (const [lane, era] of [
      ['a', 'legacy'],
      ['b', 'legacy'],
      ['c', 'legacy'],
      ['d', 'modern'],
      ['e', 'modern'],
      ['f', 'modern'],
    ] as const)
      clients[lane] = await connectClient(gw.url, await gw.token(lane), era);
  });
  after(async () => {
    for (const c of Object.values(clients)) await c.close().catch(() => undefined);
    await gw.stop();
  });

  it('after measure and a restart, the demonstrated tool is served to every lane by ONE shared child', async () => {
    for (const lane of ['a', 'b', 'c', 'd', 'e', 'f'])
      assert.match(await call(lane, 'every_echo', { message: `hi ${lane}` }), new RegExp(`hi ${lane}`));
    const kids = await children();
    assert.equal(kids.length, 1, JSON.stringify(kids));
    assert.equal(kids[0]?.placement, 'shared');
    assert.deepEqual(kids[0]?.lanes, ['a', 'b', 'c', 'd', 'e', 'f']);
  });

  for (const [era, x, y] of [
    ['handshake era', 'a', 'b'],
    ['2026-07-28', 'd', 'e'],
  ] as const) {
    it(`${era}: two lanes calling an undemonstrated stateful tool each see only their own state, and keep seeing it`, async () => {
      const sharedPid = (await children()).find((c) => c.placement === 'shared')?.pid;
      assert.match(await call(x, 'every_toggle-simulated-logging'), /Started/);
      assert.match(await call(y, 'every_toggle-simulated-logging'), /Started/, `lane ${y} must not see lane ${x}'s toggle`);
      // No split view: the escalated lane's later calls (demonstrated or not) reach its own child.
      assert.match(await call(x, 'every_echo', { message: 'again' }), /again/);
      assert.match(await call(x, 'every_toggle-simulated-logging'), /Stopped/, `lane ${x} sees its own earlier toggle`);
      assert.match(await call(y, 'every_toggle-simulated-logging'), /Stopped/);
      const kids = await children();
      const shared = kids.filter((c) => c.placement === 'shared');
      assert.equal(shared.length, 1, 'the shared child keeps serving the lanes inside the evidence');
      assert.equal(shared[0]?.pid, sharedPid, 'and it is the same process');
      assert.ok(!shared[0]?.lanes?.includes(x) && !shared[0]?.lanes?.includes(y), JSON.stringify(shared[0]?.lanes));
      for (const lane of [x, y]) assert.equal(kids.filter((c) => c.lane === lane).length, 1, `lane ${lane} has a child of its own`);
    });
  }

  it('a name the server does not list is refused (403) and moves no lane', async () => {
    const r = await modernPost(gw.url, await gw.token('c'), 1, 'tools/call', { name: 'every_no-such-tool', arguments: {} });
    assert.equal(r.status, 403);
    assert.equal((r.json?.error as { code?: number } | undefined)?.code, -32003);
    const shared = (await children()).find((c) => c.placement === 'shared');
    assert.ok(shared?.lanes?.includes('c'), 'lane c is still on the shared child');
  });

  it('the lanes inside the evidence still share one process for the demonstrated tool', async () => {
    assert.match(await call('c', 'every_get-sum', { a: 1, b: 2 }), /3/);
    assert.match(await call('f', 'every_echo', { message: 'f' }), /f/);
    const shared = (await children()).filter((c) => c.placement === 'shared');
    assert.equal(shared.length, 1);
    assert.deepEqual(shared[0]?.lanes, ['c', 'f']);
  });

  it('the escalation is an event: lanegate_status, /metrics and the review say which request moved which lane', async () => {
    const status = JSON.parse(await call('a', 'lanegate_status')) as { servers: { server: string; placement?: string }[] };
    assert.match(
      status.servers.find((s) => s.server === 'everything')?.placement ?? '',
      /served dedicated for this lane since it called tools\/call toggle-simulated-logging, which the demonstration did not cover; widen the probe/,
    );
    const c = JSON.parse(await call('c', 'lanegate_status')) as { servers: { server: string; placement?: string }[] };
    assert.equal(c.servers.find((s) => s.server === 'everything')?.placement, undefined, 'a lane that stayed inside is not told it moved');
    const metrics = await (
      await fetch(gw.url.replace(/\/mcp$/, '/metrics'), { headers: { authorization: `Bearer ${gw.operatorToken}` } })
    ).text();
    for (const lane of ['a', 'b', 'd', 'e'])
      assert.match(metrics, new RegExp(`lanegate_escalations_total\\{server="everything",lane="${lane}"\\} 1`));
    assert.doesNotMatch(metrics, /lanegate_escalations_total\{server="everything",lane="c"\}/);
    assert.doesNotMatch(metrics, /lanegate_hazards_total\{/, 'an escalation is not a hazard');
    const r = await cli(['review', '--json', '--policy', gw.policyFile, '--url', gw.url]);
    assert.equal(r.exitCode, 0, String(r.stderr));
    const review = JSON.parse(String(r.stdout)) as { source: string; servers: Row[] };
    assert.equal(review.source, 'gateway');
    const row = review.servers.find((s) => s.server === 'everything');
    assert.equal(row?.placement, 'shared');
    assert.deepEqual(row?.scope, ['tools/call echo', 'tools/call get-sum']);
    assert.deepEqual(row?.live?.sharedLanes, ['c', 'f']);
    assert.deepEqual(
      row?.live?.escalations.map((e) => `${e.lane} ${e.request}`).sort(),
      ['a', 'b', 'd', 'e'].map((l) => `${l} tools/call toggle-simulated-logging`),
    );
    const text = await cli(['review', '--policy', gw.policyFile, '--url', gw.url]);
    assert.match(String(text.stdout), /scope: {6}tools\/call echo, tools\/call get-sum/);
    assert.match(String(text.stdout), /escalated: {2}lane a runs it dedicated since .*: it called tools\/call toggle-simulated-logging/);
  });

  it('lanegate status shows the same from the terminal: placements, scope, lanes, children with pid and RSS', async () => {
    const r = await cli(['status', '--json', '--policy', gw.policyFile, '--url', gw.url]);
    assert.equal(r.exitCode, 0, String(r.stderr));
    const s = JSON.parse(String(r.stdout)) as {
      servers: { server: string; placement: string; scope: string[]; sharedLanes: string[]; escalations: { lane: string }[] }[];
      lanes: { lane: string; sessions: number }[];
      hosts: { key: string; rssMb?: number; children: { server: string; pid: number; rssMb?: number }[] }[];
    };
    const every = s.servers.find((x) => x.server === 'everything');
    assert.equal(every?.placement, 'shared');
    assert.deepEqual(every?.sharedLanes, ['c', 'f']);
    assert.equal(every?.escalations.length, 4);
    assert.equal(s.lanes.length, 6);
    const host = s.hosts.find((h) => h.key === 'public');
    assert.ok((host?.rssMb ?? 0) > 10, 'the host has an RSS');
    assert.ok(
      host?.children.every((c) => c.pid > 0 && (c.rssMb ?? 0) > 10),
      JSON.stringify(host?.children),
    );
    const text = await cli(['status', '--policy', gw.policyFile, '--url', gw.url]);
    assert.match(String(text.stdout), /scope: tools\/call echo, tools\/call get-sum; on the shared child: c, f/);
    assert.match(String(text.stdout), /lane a runs it dedicated since it called tools\/call toggle-simulated-logging/);
  });
});
