import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { policyHead, ROOT, type RunningGateway, startGateway, measurePass } from '../helpers/gateway.js';
import { reviewRow, spotChecks, laneCaller } from '../helpers/review.js';
import { sleep, waitFor } from '../helpers/procs.js';

const LEAKY = path.join(ROOT, 'test/fixtures/servers/cross-leaky.mjs');

// A server that speaks both eras and says which one an answer is in (as SDK servers do): lanes
// calling in 2026-07-28 get a shared child in that era; after 20 calls it shows real state.
const POLICY = `${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
  both:
    prefix: bo
    domain: public
    stdio: { command: node, args: ["${LEAKY}", "--modern", "--where", "--state-after-calls", "20"] }
    probe:
      - { tool: note, args: { text: "{canary}" } }
      - { tool: where, args: {} }
lanes:
  a: { servers: [both] }
  b: { servers: [both] }
`;

describe('spot checks of a 2026-07-28 shared child run fresh processes in that era', () => {
  let gw: RunningGateway;
  const tokens: Record<string, string> = {};
  const row = () => reviewRow(gw, 'both');
  const call = laneCaller(() => gw, tokens);

  before(async () => {
    gw = await startGateway(POLICY, { env: { LANEGATE_SPOT_CHECK_MS: '500' } });
    tokens.a = await gw.token('a');
    tokens.b = await gw.token('b');
    await measurePass(gw);
    await waitFor(async () => ((await row())?.placement === 'shared' ? true : undefined), 20_000);
  });
  after(async () => gw.stop());

  it('while honest: the era’s own answer fields are no difference, and nothing retreats', async () => {
    for (let i = 0; i < 6; i += 1) {
      assert.match(await call(i % 2 === 0 ? 'a' : 'b', 'bo_where', {}), /^home=\S+ cwd=\S+$/);
      await sleep(300);
    }
    await waitFor(() => (spotChecks(gw.stderr(), 'both') >= 3 ? true : undefined), 20_000);
    await sleep(1500); // a difference is confirmed on one more fresh process before it is logged
    assert.doesNotMatch(gw.stderr(), /"event":"spot_check_failed"/);
    assert.match(gw.stderr(), /"event":"upstream_started","server":"both","childPid"/, 'a shared child ran');
    const r = await row();
    assert.equal(r?.placement, 'shared');
    assert.deepEqual(
      r?.hazards.filter((h) => h.current),
      [],
    );
  });

  it('once it keeps state, the spot check in that era still sees it and the server retreats', async () => {
    for (let i = 0; i < 24; i += 1) await call(i % 2 === 0 ? 'a' : 'b', 'bo_note', { text: `n${i}` });
    const r = await waitFor(async () => {
      const x = await row();
      return x?.placement === 'dedicated' ? x : undefined;
    }, 20_000);
    assert.ok(
      r?.hazards.some((h) => h.current && h.record.codes.includes('tripwire')),
      JSON.stringify(r?.hazards),
    );
    assert.match(gw.stderr(), /"event":"spot_check_failed","server":"both"/);
  });
});
