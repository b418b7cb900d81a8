import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Agent } from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fixtureGateway, type RunningGateway } from '../helpers/gateway.js';
import { modernCall, send } from '../helpers/http.js';
import { alive, killLeftovers, waitFor } from '../helpers/procs.js';

/**
 * What a stdio child starts (here the fixture's helper, which ignores SIGTERM, as npx's server is
 * npx's own child) ends with the child however its host ends: stopped with the gateway, or
 * SIGKILLed by the front's watchdog; and a terminal's hangup does not end a host at all. Real
 * gateway, real host, real fixture child and helper.
 */
describe("a host's children and what they started", { skip: process.platform !== 'linux', timeout: 60_000 }, () => {
  let gw: RunningGateway;
  let token: string;
  let id = 0;
  const helpers: number[] = [];
  // A connection per call: a host is killed under the lane's calls.
  const agent = new Agent({ keepAlive: false });
  before(async () => {
    // The front pings each host every 100 ms and kills one silent for 3 s (defaults: 5 s, 20 s).
    gw = await fixtureGateway({ env: { LANEGATE_HOST_PING_MS: '100', LANEGATE_HOST_HUNG_MS: '3000' } });
    token = await gw.token('a');
  });
  after(async () => {
    agent.destroy();
    await gw?.stop();
    killLeftovers(helpers);
  });

  const call = async (tool: string, args: Record<string, unknown>): Promise<string> => {
    id += 1;
    const c = modernCall(token, id, tool, args);
    return (await send(new URL(gw.url), c.body, c.headers, agent)).text;
  };
  /** The child serving the lane, the helper it just started, and its host (the child's parent: setpriv execs in place). */
  const withHelper = async (termFile?: string): Promise<{ child: number; helper: number; host: number }> => {
    const text = await call('fix_pid', { helper: true, ...(termFile ? { termFile } : {}) });
    const m = /"text":"(\d+) (\d+)"/.exec(text);
    assert.ok(m, text.slice(0, 300));
    const child = Number(m[1]);
    const helper = Number(m[2]);
    helpers.push(helper);
    const stat = readFileSync(`/proc/${child}/stat`, 'utf8');
    const host = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    assert.ok(alive(child) && alive(helper) && alive(host));
    return { child, helper, host };
  };

  it('a hangup (SIGHUP) does not end a host: the same host and child go on answering', async () => {
    const { child, helper, host } = await withHelper();
    process.kill(host, 'SIGHUP');
    await new Promise((r) => setTimeout(r, 500));
    assert.ok(alive(host), 'the host is still there');
    assert.match(await call('fix_pid', {}), new RegExp(`"text":"${child}"`), 'the same child answers');
    assert.ok(alive(helper));
  });

  it("a host the front's watchdog SIGKILLs takes what its child started with it", async () => {
    const { child, helper, host } = await withHelper();
    // A stopped host answers no ping: the front kills it after 3 s, its child dies with it
    // (PR_SET_PDEATHSIG), and the child's helper is swept by the front.
    process.kill(host, 'SIGSTOP');
    assert.ok(await waitFor(() => !alive(host), 15_000, 50), 'the front killed the silent host');
    assert.ok(await waitFor(() => !alive(child), 2_000, 50), 'its child died with it');
    assert.ok(await waitFor(() => !alive(helper), 3_000, 50), "the child's helper is gone too");
    assert.match(gw.stderr(), /host_unresponsive/);
    // A new host and child serve the lane.
    const next = await waitFor(async () => /"text":"(\d+)"/.exec(await call('fix_pid', {}))?.[1], 15_000, 250);
    assert.ok(next && Number(next) !== child, `a new child answers (${next})`);
  });

  it("stopping the gateway stops what its children started, after the SIGTERM's second", async () => {
    const termFile = path.join(gw.dir, 'helper-term');
    const { child, helper, host } = await withHelper(termFile);
    await gw.stop();
    assert.ok(!alive(child), 'the child is gone');
    // The child exits on its closed input; its helper ignores the group's SIGTERM and gets the
    // SIGKILL a second later: the host waits for that second before it exits (not at once, at exit).
    assert.ok(await waitFor(() => !alive(helper), 3_000, 20), 'the helper it started is gone');
    const died = Date.now();
    assert.ok(!alive(host), 'the host is gone');
    const termed = Number(readFileSync(termFile, 'utf8'));
    assert.ok(died - termed >= 800, `the helper had its second after the SIGTERM (${died - termed} ms)`);
  });
});
