import assert from 'node:assert/strict';
import { Agent } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { fixtureGateway, type RunningGateway } from '../helpers/gateway.js';
import { modernCall, send } from '../helpers/http.js';
import { alive, killLeftovers, waitFor } from '../helpers/procs.js';

/**
 * A child stuck after a timeout is recycled (attack round 16, LOW: a server that stops answering
 * kept every later call of its lanes waiting out callTimeout until its idle stop). A call that times
 * out earns its child one ping; a child that answers it is kept, one that does not is killed and
 * restarted like a crashed one. Real gateway, real fixture child (its event loop really blocked).
 */
describe('a child that stops answering after a call timed out', () => {
  let gw: RunningGateway;
  let token: string;
  let id = 0;
  // A connection per call: the test waits past node's 5 s keep-alive, and a pooled socket closing as it is reused loses the call.
  const agent = new Agent({ keepAlive: false });
  const helpers: number[] = [];
  before(async () => {
    gw = await fixtureGateway({ fix: 'callTimeout: 2s' });
    token = await gw.token('a');
  });
  after(async () => {
    agent.destroy();
    await gw?.stop();
    killLeftovers(helpers);
  });

  const call = async (tool: string, args: Record<string, unknown>): Promise<{ status: number; text: string }> => {
    id += 1;
    const c = modernCall(token, id, tool, args);
    return send(new URL(gw.url), c.body, c.headers, agent);
  };
  /** The pid of the child serving the lane, or undefined while it is down (restarting). */
  const pid = async (): Promise<number | undefined> => {
    const r = await call('fix_pid', {});
    const m = /"text":"(\d+)"/.exec(r.text);
    return m ? Number(m[1]) : undefined;
  };

  it('is killed once a ping gets no answer either, with what it started, and the next calls reach a new child', async () => {
    // The child starts a helper that ignores SIGTERM (as npx's server is npx's own child).
    const started = /"text":"(\d+) (\d+)"/.exec((await call('fix_pid', { helper: true })).text);
    const first = Number(started?.[1]);
    const helper = Number(started?.[2]);
    helpers.push(helper);
    assert.ok(first > 0 && helper > 0, 'the child answers at first, and its helper runs');
    assert.ok(alive(helper));
    const t0 = Date.now();
    const stuck = await call('fix_sleep', { ms: 20_000, block: true });
    assert.match(stuck.text, /timed out/, stuck.text.slice(0, 300));
    // The ping went out as that call timed out (t0 + 2 s); its 5 s window ends at t0 + 7 s. A call
    // sent at t0 + 6 s times out 2 s later, after the kill: it is still waiting when the child is
    // killed, and is told why. It must be sent between t0 + 5 s (else it times out first) and
    // t0 + 7 s (else the child is gone): 1 s of slack either way.
    await new Promise((r) => setTimeout(r, t0 + 6_000 - Date.now()));
    const waiting = await call('fix_echo', { text: 'hello?' });
    assert.match(waiting.text, /is stuck: a call timed out and a ping got no answer within 5 s/, waiting.text.slice(0, 300));
    // The ping waits 5 s (callTimeout 2 s, raised to the 5 s floor), then the kill, the crash backoff and a start: under the 20 s block.
    let next: number | undefined;
    for (let i = 0; i < 80 && (next === undefined || next === first); i += 1) {
      await new Promise((r) => setTimeout(r, 250));
      next = await pid();
    }
    const ms = Date.now() - t0;
    assert.ok(next !== undefined && next !== first, `a new child answers (first ${first}, now ${next})`);
    assert.ok(ms < 16_000, `recycled after ${ms} ms, not after the 20 s the child was blocked for`);
    assert.equal(alive(first), false, 'the stuck child is gone');
    // Its helper got the group's SIGTERM (ignored), then the SIGKILL of what its leader left behind.
    assert.ok(await waitFor(() => !alive(helper), 3_000), 'the helper it started is gone too');
    assert.match(gw.stderr(), /stuck: a call timed out and a ping got no answer within 5 s/);
  });

  it('is kept when it still answers (only that call was slow)', async () => {
    const first = await pid();
    assert.ok(first);
    const slow = await call('fix_sleep', { ms: 5_000 });
    assert.match(slow.text, /timed out/, slow.text.slice(0, 300));
    // Past the ping's 5 s: a child taken for stuck would have been killed by now.
    await new Promise((r) => setTimeout(r, 6_000));
    const after = await call('fix_pid', {});
    assert.match(after.text, new RegExp(`"text":"${first}"`), `the same child: ${after.text.slice(0, 300)}`);
    assert.ok(alive(first));
  });
});
