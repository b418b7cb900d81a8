import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixtureTwoLanes, policyHead, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { legacySession, modernMeta, modernPost, post, textOf } from '../helpers/mcp.js';

/**
 * A call that waits for its turn (its lane's recent answers are large, so its calls take turns
 * weighed by them) can be cancelled while it waits, and then never runs (attack round 9: it was
 * acknowledged cancelled, 202, and later ran to its end).
 */
describe('a call waiting for its turn can be cancelled, and never runs', () => {
  let gw: RunningGateway;
  let ta: string;
  before(async () => {
    gw = await startGateway(`${policyHead()}
${fixtureTwoLanes()}`);
    ta = await gw.token('a');
  });
  after(async () => gw.stop());

  it("a 2026-07-28 cancel of a waiting call answers it cancelled at once; the upstream's counter never moves", async (t) => {
    const big = await modernPost(gw.url, ta, 1, 'tools/call', { name: 'fix_echo', arguments: { text: 'z'.repeat(3_500_000) } });
    assert.equal(big.status, 200);
    const t0 = Date.now();
    const sleeps = [11, 12, 13].map((id) => modernPost(gw.url, ta, id, 'tools/call', { name: 'fix_sleep', arguments: { ms: 2500 } }));
    await new Promise((r) => setTimeout(r, 200));
    const counted = modernPost(gw.url, ta, 20, 'tools/call', { name: 'fix_count', arguments: {} }).then((r) => ({
      ...r,
      ms: Date.now() - t0,
    }));
    await new Promise((r) => setTimeout(r, 300));
    const cancel = await post(
      gw.url,
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 20, _meta: modernMeta } },
      { authorization: `Bearer ${ta}`, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'notifications/cancelled' },
    );
    assert.equal(cancel.status, 202);
    const r = await counted;
    assert.equal(
      (r.json as { error?: { code?: number } } | undefined)?.error?.code,
      -32800,
      `the waiting call was answered ${JSON.stringify(r.json).slice(0, 200)}`,
    );
    t.diagnostic(`the waiting call was answered cancelled ${r.ms} ms after the calls ahead of it started`);
    assert.ok(r.ms < 2000, `answered after ${r.ms} ms, before the calls ahead of it ended`);
    for (const s of await Promise.all(sleeps)) assert.equal(s.status, 200);
    const again = await modernPost(gw.url, ta, 21, 'tools/call', { name: 'fix_count', arguments: {} });
    assert.equal(textOf(again.json?.result ?? {}), '1', 'the cancelled call never reached the upstream');
  });

  it('a handshake-era session ended with DELETE answers its waiting call cancelled; it never runs', async (t) => {
    const h = { ...(await legacySession(gw.url, ta)), 'mcp-protocol-version': '2025-06-18' };
    const call = (id: number, name: string, args: Record<string, unknown>) =>
      fetch(gw.url, {
        method: 'POST',
        headers: h,
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }),
      });
    const big = await call(2, 'fix_echo', { text: 'y'.repeat(3_500_000) });
    assert.equal(big.status, 200);
    await big.text();
    const before = textOf((await modernPost(gw.url, ta, 30, 'tools/call', { name: 'fix_count', arguments: {} })).json?.result ?? {});
    const t0 = Date.now();
    const sleeps = [3, 4, 5].map((id) => call(id, 'fix_sleep', { ms: 2500 }).then((r) => r.text()));
    await new Promise((r) => setTimeout(r, 200));
    const waiting = call(6, 'fix_count', {}).then(async (r) => ({ text: await r.text(), ms: Date.now() - t0 }));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await fetch(gw.url, { method: 'DELETE', headers: h })).status, 200);
    const w = await waiting;
    assert.match(w.text, /"code":-32800/, `the waiting call was answered ${w.text.slice(0, 200)}`);
    t.diagnostic(`the waiting call was answered cancelled ${w.ms} ms after the calls ahead of it started`);
    assert.ok(w.ms < 2000, `answered after ${w.ms} ms`);
    await Promise.all(sleeps);
    const after = textOf((await modernPost(gw.url, ta, 31, 'tools/call', { name: 'fix_count', arguments: {} })).json?.result ?? {});
    assert.equal(Number(after), Number(before) + 1, 'only the counting call after it ran: the waiting one never did');
  });
});
