import assert from 'node:assert/strict';
import { Agent } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { BYTE_TURN_WAIT_MS } from '../../src/front/transport/request-gate.js';
import { FIXTURE, policyHead, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { modernCall, send } from '../helpers/http.js';
import { unreadPost } from '../helpers/unread.js';

/**
 * Attack round 16, F1: a lane's large request waiting for its byte turn (its body unread) past
 * node's 30 s deadline for a whole request got a bare 408 with an empty body, and never reached its
 * upstream. Now the wait ends at BYTE_TURN_WAIT_MS with a 429 naming the setting, and the lane's
 * next large request runs once the turn is free. Real gateway, real fixture child, loopback.
 */
describe('a large request waiting for its byte turn is refused in time, with the setting named', () => {
  let gw: RunningGateway;
  let token: string;
  const agent = new Agent({ keepAlive: false });
  before(async () => {
    gw = await startGateway(`${policyHead('  limits: { bytesInFlightPerLane: 1048576 }')}
trustDomains: { public: { kind: shared } }
servers:
  fix: { prefix: fix, domain: public, stdio: { command: node, args: ["${FIXTURE}"] } }
lanes:
  a: { servers: [fix] }
`);
    token = await gw.token('a');
  });
  after(async () => {
    agent.destroy();
    await gw?.stop();
  });

  it('the second of two 700 KB calls (1 MiB a lane) waits, then gets a 429 naming bytesInFlightPerLane, before node would have sent 408', async (t) => {
    const url = new URL(gw.url);
    const pad = 'p'.repeat(700_000);
    // Held past node's 30 s deadline for a whole request: on the code before, the second got a bare 408 at 30 s.
    const holdMs = 31_000;
    const first = modernCall(token, 1, 'fix_sleep', { ms: holdMs, pad });
    const holding = send(url, first.body, first.headers, agent);
    await new Promise((r) => setTimeout(r, 500));
    const second = modernCall(token, 2, 'fix_echo', { text: `e${pad}` });
    const t0 = Date.now();
    const refused = await send(url, second.body, second.headers, agent);
    const ms = Date.now() - t0;
    t.diagnostic(`refused after ${ms} ms: ${refused.status} ${refused.text.slice(0, 200)}`);
    assert.equal(refused.status, 429, refused.text.slice(0, 300));
    const body = JSON.parse(refused.text) as { error?: { message?: string; data?: { limit?: string } } };
    assert.equal(body.error?.data?.limit, 'gateway.limits.bytesInFlightPerLane');
    assert.match(body.error?.message ?? '', /bytesInFlightPerLane/);
    assert.ok(ms >= BYTE_TURN_WAIT_MS - 1000 && ms < 29_000, `refused after ${ms} ms`);
    // The call holding the turn was never disturbed; with the turn free, the same request runs.
    const held = await holding;
    assert.equal(held.status, 200);
    assert.match(held.text, /slept/);
    const again = await send(url, second.body, second.headers, agent);
    assert.equal(again.status, 200);
    assert.ok(again.text.includes(`e${pad.slice(0, 1000)}`), 'the echo came back');
  });
});

/** One lane, one fixture server that can answer with `big` texts. */
const bigLanePolicy = (): string => `${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
  fix: { prefix: fix, domain: public, stdio: { command: node, args: ["${FIXTURE}", "--big"] } }
lanes:
  a: { servers: [fix] }
`;

/**
 * Attack round 17, MEDIUM-3: three clients of a lane ask for 15 MB answers and never read them;
 * another client of the SAME lane then sends a small call. Its turn is weighed by the lane's recent
 * large answers, which its unread answers hold until read or stalled out (30 s each), and it waited
 * past 60 s without a word. Now it is refused at BYTE_TURN_WAIT_MS with a 429 naming the setting.
 */
describe("a lane's small call behind its own unread large answers is refused in time, not held", () => {
  let gw: RunningGateway;
  let token: string;
  const agent = new Agent({ keepAlive: false });
  const held: ReturnType<typeof unreadPost>[] = [];
  before(async () => {
    gw = await startGateway(bigLanePolicy());
    token = await gw.token('a');
  });
  after(async () => {
    for (const h of held) h.socket.destroy();
    agent.destroy();
    await gw?.stop();
  });

  it('three unread 15 MB answers: a small call of the same lane gets a 429 naming bytesInFlightPerLane at the turn deadline', async (t) => {
    const url = new URL(gw.url);
    // The lane's answers are large: read once in full, so its calls are weighed by them.
    const read = modernCall(token, 1, 'fix_big', { n: 15_000_000 });
    assert.equal((await send(url, read.body, read.headers, agent)).status, 200);
    for (let i = 0; i < 3; i += 1) {
      const c = modernCall(token, 10 + i, 'fix_big', { n: 15_000_000 });
      held.push(unreadPost(url, c.headers, c.body));
    }
    await Promise.all(held.map((h) => h.status));
    const small = modernCall(token, 2, 'fix_echo', { text: 'small' });
    const t0 = Date.now();
    const r = await send(url, small.body, small.headers, agent);
    const ms = Date.now() - t0;
    t.diagnostic(`answered after ${ms} ms: ${r.status} ${r.text.slice(0, 240)}`);
    assert.equal(r.status, 429, r.text.slice(0, 300));
    const body = JSON.parse(r.text) as { error?: { message?: string; data?: { limit?: string } } };
    assert.equal(body.error?.data?.limit, 'gateway.limits.bytesInFlightPerLane');
    assert.match(body.error?.message ?? '', /still hold \d+ bytes of answers unread/);
    assert.equal((body as { id?: unknown }).id, 2, "the refusal answers the call's id (attack round 36: it was null)");
    assert.ok(ms >= BYTE_TURN_WAIT_MS - 1000 && ms < BYTE_TURN_WAIT_MS + 8000, `answered after ${ms} ms`);
  });
});

/**
 * Attack round 36 (LOW): the same refusal told a lane whose clients held nothing unread that they
 * "still hold 0 bytes of answers unread". What held the turn there is the lane's own large call
 * still in flight; the refusal says so.
 */
describe("a lane's small call behind its own large call in flight is told what held it", () => {
  let gw: RunningGateway;
  const agent = new Agent({ keepAlive: false });
  before(async () => {
    gw = await startGateway(bigLanePolicy());
  });
  after(async () => {
    agent.destroy();
    await gw?.stop();
  });

  it('nothing unread, one weighed call sleeping: the refusal names the call in flight, not unread bytes', async () => {
    const token = await gw.token('a');
    const url = new URL(gw.url);
    const read = modernCall(token, 1, 'fix_big', { n: 15_000_000 });
    assert.equal((await send(url, read.body, read.headers, agent)).status, 200);
    // Weighed by the 15 MB answer, this call holds the lane's answer turn while it sleeps.
    const slow = modernCall(token, 2, 'fix_sleep', { ms: BYTE_TURN_WAIT_MS + 5000 });
    const sleeping = send(url, slow.body, slow.headers, agent);
    await new Promise((r) => setTimeout(r, 300));
    const small = modernCall(token, 3, 'fix_echo', { text: 'small' });
    const r = await send(url, small.body, small.headers, agent);
    assert.equal(r.status, 429, r.text.slice(0, 300));
    const body = JSON.parse(r.text) as { id?: unknown; error?: { message?: string; data?: { limit?: string } } };
    assert.equal(body.error?.data?.limit, 'gateway.limits.bytesInFlightPerLane');
    assert.match(body.error?.message ?? '', /other large calls still in flight/);
    assert.doesNotMatch(body.error?.message ?? '', /unread/);
    assert.equal(body.id, 3);
    assert.equal((await sleeping).status, 200, 'the call that held the turn completes');
  });
});
