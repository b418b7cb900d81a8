import assert from 'node:assert/strict';
import { Agent } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { BYTE_TURN_WAIT_MS } from '../../src/front/transport/request-gate.js';
import { FIXTURE, policyHead, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { modernCall, send } from '../helpers/http.js';

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
