import assert from 'node:assert/strict';
import { Agent } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { FIXTURE, policyHead, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { modernCall, send } from '../helpers/http.js';

/**
 * Attack round 37 (MEDIUM): a lane's burst of large answers was all in its host at once while the
 * host checked them (ten concurrent 23 MB reads: host 959 MB), bounded only by callsPerLane ×
 * resultBytes. Now a host holds a lane's answers up to gateway.limits.unsentBytesPerLane while it
 * checks them, and refuses one that would pass it, by name. Real gateway, real fixture child.
 */
const LANE_LIMIT = 2 * 1024 * 1024;
const N = 1_500_000;
/** Text the secret scan reads through a layer at a time: each answer stays in the host a while. */
const UNIT = '%252567%';
const POLICY = `${policyHead(`  limits: { unsentBytesPerLane: ${LANE_LIMIT} }`)}
trustDomains: { public: { kind: shared } }
servers:
  fix: { prefix: fix, domain: public, stdio: { command: node, args: ["${FIXTURE}", "--big"] } }
lanes:
  a: { servers: [fix] }
  b: { servers: [fix] }
`;

interface Answer {
  status: number;
  text?: string;
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

describe("a host holds a lane's answers up to unsentBytesPerLane while it checks them", () => {
  let gw: RunningGateway;
  let ta: string;
  let tb: string;
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const big = async (token: string, id: number, waitMs: number): Promise<Answer> => {
    const c = modernCall(token, id, 'fix_big', { n: N, unit: UNIT, waitMs });
    const r = await send(new URL(gw.url), c.body, c.headers, agent);
    const body = JSON.parse(r.text || '{}') as { result?: { content?: { text?: string }[] }; error?: Answer['error'] };
    return {
      status: r.status,
      ...(body.result ? { text: body.result.content?.[0]?.text ?? '' } : {}),
      ...(body.error ? { error: body.error } : {}),
    };
  };
  const heldRefusal = (a: Answer): boolean => a.status === 200 && /still being checked in its host/.test(a.error?.message ?? '');

  before(async () => {
    gw = await startGateway(POLICY);
    ta = await gw.token('a');
    tb = await gw.token('b');
    // The child is started and its surface vetted before the burst; fix_big itself has no history yet.
    const c = modernCall(ta, 0, 'fix_echo', { text: 'warm' });
    assert.match((await send(new URL(gw.url), c.body, c.headers, agent)).text, /warm/);
  });
  after(async () => {
    agent.destroy();
    await gw?.stop();
  });

  it('of four concurrent 1.5 MB answers (2 MiB a lane), those past the bound are refused naming it; the rest arrive whole', async (t) => {
    const all = await Promise.all([1, 2, 3, 4].map((i) => big(ta, i, 300)));
    t.diagnostic(all.map((a) => (a.text ? `ok ${a.text.length}` : `${a.status} ${a.error?.message.slice(0, 90)}`)).join(' | '));
    const refused = all.filter(heldRefusal);
    assert.ok(refused.length >= 1, 'at least one answer was refused by the host');
    for (const r of refused) {
      assert.equal(r.error?.code, -32004);
      assert.equal(r.error?.data?.limit, 'gateway.limits.unsentBytesPerLane');
      assert.equal(r.error?.data?.value, LANE_LIMIT);
      assert.equal(r.error?.data?.server, 'fix');
      assert.ok(Number(r.error?.data?.bytes) >= N && Number(r.error?.data?.held) >= N, JSON.stringify(r.error?.data));
      assert.match(r.error?.message ?? '', /raise gateway\.limits\.unsentBytesPerLane/);
    }
    // Nothing else went wrong: every other answer is whole (or the front's own bound, by name).
    for (const a of all.filter((x) => !heldRefusal(x))) {
      if (a.text !== undefined) assert.equal(a.text, UNIT.repeat(N / UNIT.length));
      else assert.match(a.error?.message ?? '', /unsentBytesPerLane/, JSON.stringify(a).slice(0, 300));
    }
    assert.ok(
      all.some((a) => a.text?.length === N),
      'the first answer held is delivered',
    );
    assert.match(gw.stderr(), /"event":"answer_refused"[^\n]*"server":"fix"/);
  });

  it('the same burst again, now that the call is known to answer large, waits in the host instead: all four arrive whole', async (t) => {
    const refusedBefore = gw.stderr().split('"event":"answer_refused"').length;
    const t0 = Date.now();
    const all = await Promise.all([5, 6, 7, 8].map((i) => big(ta, i, 300)));
    t.diagnostic(`${Date.now() - t0} ms: ${all.map((a) => (a.text ? `ok ${a.text.length}` : a.error?.message.slice(0, 60))).join(' | ')}`);
    for (const a of all) assert.equal(a.text, UNIT.repeat(N / UNIT.length), JSON.stringify(a.error));
    assert.equal(gw.stderr().split('"event":"answer_refused"').length, refusedBefore, 'no answer refused this time');
  });

  it("the bound is the lane's own, and released: lane b, and lane a's next call, get theirs whole", async () => {
    const [a, b] = await Promise.all([big(ta, 10, 300), big(tb, 11, 300)]);
    assert.equal(a.text?.length, N, JSON.stringify(a.error));
    assert.equal(b.text?.length, N, JSON.stringify(b.error));
    assert.ok(!gw.stderr().includes('"event":"answer_refused","lane":"b"'), 'lane b was never refused');
  });
});
