import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { FIXTURE, policyHead, type RunningGateway, startGateway, tempDir } from '../helpers/gateway.js';
import { modernPost, textOf } from '../helpers/mcp.js';
import { sleep } from '../helpers/procs.js';

/**
 * Attack round 16, F3: a call that timed out was let go by lanegate but never cancelled upstream
 * (the spec: a sender whose request timed out SHOULD send notifications/cancelled), so its work ran
 * on. Now the timeout cancels it: the fixture's sleep ends "cancelled", not "completed".
 */
describe('a call that times out is cancelled upstream', () => {
  let gw: RunningGateway;
  let token: string;
  const marker = `${tempDir('marker')}/sleep.log`;
  before(async () => {
    gw = await startGateway(`${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
  fix: { prefix: fix, domain: public, callTimeout: 1s, stdio: { command: node, args: ["${FIXTURE}", "--marker", "${marker}"] } }
lanes:
  a: { servers: [fix] }
`);
    token = await gw.token('a');
  });
  after(async () => gw?.stop());

  it('the lane gets the timeout at callTimeout, and the upstream is told to stop: its work ends cancelled, never completed', async () => {
    const t0 = Date.now();
    const r = await modernPost(gw.url, token, 1, 'tools/call', { name: 'fix_sleep', arguments: { ms: 10_000 } });
    const ms = Date.now() - t0;
    assert.match(textOf(r.json?.result) ?? JSON.stringify(r.json), /timed out/);
    // Well before the sleep would end (a loaded .ci/run took 3.3 s to answer a 1 s timeout, the child's start included).
    assert.ok(ms < 8000, `answered after ${ms} ms`);
    await sleep(Math.max(0, 10_500 - ms));
    const seen = readFileSync(marker, 'utf8');
    assert.match(seen, /cancelled/, `the upstream's own record: ${JSON.stringify(seen)}`);
    assert.doesNotMatch(seen, /completed/);
  });
});
