import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FIXTURE, policyHead, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { modernPost, textOf } from '../helpers/mcp.js';
import { sleep, waitFor } from '../helpers/procs.js';

const POLICY = `${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
  broken: { prefix: broken, domain: public, stdio: { command: node, args: ["${path.join(path.dirname(FIXTURE), 'no-such-server.mjs')}"] } }
  idle: { prefix: idle, domain: public, idle: 1s, stdio: { command: node, args: ["${FIXTURE}"] } }
  slow: { prefix: slow, domain: public, idle: 1s, stdio: { command: node, args: ["${FIXTURE}", "--slow-init", "1800"] } }
lanes:
  a: { servers: [broken, idle, slow] }
`;

describe("a dedicated child's life: failed starts, restarts, idling", () => {
  let gw: RunningGateway;
  let t: string;
  const children = async (server: string): Promise<number> => {
    const r = await fetch(gw.url.replace(/\/mcp$/, '/api/processes'), { headers: { authorization: `Bearer ${gw.operatorToken}` } });
    const body = (await r.json()) as { hosts: Record<string, { children: { server: string }[] }> };
    return Object.values(body.hosts)
      .flatMap((h) => h.children)
      .filter((c) => c.server === server).length;
  };
  const events = (event: string, server: string): number =>
    gw
      .stderr()
      .split('\n')
      .filter((l) => l.includes(`"event":"${event}"`) && l.includes(`"server":"${server}"`)).length;

  before(async () => {
    gw = await startGateway(POLICY);
    t = await gw.token('a');
  });
  after(async () => gw.stop());

  it('a child that fails to start is one failed start, not a crash, and is not respawned in the background', async () => {
    const r = await modernPost(gw.url, t, 1, 'tools/call', { name: 'broken_echo', arguments: {} });
    assert.match(JSON.stringify(r.json), /broken/);
    assert.ok(await waitFor(async () => events('upstream_start_failed', 'broken') >= 1, 10_000, 100));
    await sleep(300);
    const tried = events('upstream_start_failed', 'broken');
    // Long enough for background restarts at the first backoff steps (0.5 s, 1 s): none may come.
    await sleep(2500);
    assert.equal(events('upstream_start_failed', 'broken'), tried, 'no start without a request asking for it');
    assert.equal(events('upstream_crashed', 'broken'), 0, 'a failed start is not a crash');
  });

  it('a child restarted after a crash still stops when idle', async () => {
    assert.match(
      textOf((await modernPost(gw.url, t, 2, 'tools/call', { name: 'idle_echo', arguments: { text: 'up' } })).json?.result),
      /up/,
    );
    await modernPost(gw.url, t, 3, 'tools/call', { name: 'idle_crash', arguments: {} });
    assert.ok(await waitFor(async () => events('upstream_started', 'idle') >= 2, 10_000, 100), 'restarted');
    assert.ok(await waitFor(async () => (await children('idle')) === 0, 10_000, 200), 'the restarted child idled out');
  });

  it('a call running longer than the idle time keeps its child: the child idles out only once the call has answered', async () => {
    // The child's idle time is 1 s; the call sleeps 2.5 s. Before, the idle timer (set when the call
    // began) stopped the child under the call, which failed with "was stopped".
    const r = await modernPost(gw.url, t, 4, 'tools/call', { name: 'idle_sleep', arguments: { ms: 2500 } });
    assert.equal(textOf(r.json?.result), 'slept', JSON.stringify(r.json).slice(0, 300));
    assert.ok(await waitFor(async () => (await children('idle')) === 0, 10_000, 200), 'the child idled out after the call');
  });

  it('a child whose start takes longer than its idle time is not stopped as it starts: the call that started it is answered', async () => {
    // slow answers initialize after 1.8 s; its idle time is 1 s. Before, the timer set when the call
    // asked for the child fired during the start and stopped the child as soon as it was up.
    const r = await modernPost(gw.url, t, 5, 'tools/call', { name: 'slow_echo', arguments: { text: 'started' } });
    assert.equal(textOf(r.json?.result), 'started', JSON.stringify(r.json).slice(0, 300));
  });

  it("every log line's pid is the process that wrote it; a child's or a host's pid is a field of its own", async () => {
    const r = await fetch(gw.url.replace(/\/mcp$/, '/api/processes'), { headers: { authorization: `Bearer ${gw.operatorToken}` } });
    const body = (await r.json()) as { hosts: Record<string, { pid: number; children: { pid: number }[] }> };
    const writers = new Set([gw.pid, ...Object.values(body.hosts).map((h) => h.pid)]);
    const lines = gw
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { pid?: number; event?: string; hostPid?: number; childPid?: number });
    assert.ok(lines.some((l) => l.event === 'host_started' && typeof l.hostPid === 'number'));
    assert.ok(lines.some((l) => l.event === 'upstream_started' && typeof l.childPid === 'number'));
    for (const l of lines) assert.ok(writers.has(l.pid ?? -1), `a log line names a pid that wrote no log: ${JSON.stringify(l)}`);
  });
});
