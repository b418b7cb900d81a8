import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FIXTURE, policyHead, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { legacySession } from '../helpers/mcp.js';
import { waitFor } from '../helpers/procs.js';

/**
 * A lane's notifications/cancelled reaches the upstream call and ends it. It runs alone (test/run.mjs
 * SERIAL): the call must end within 3 s, before the upstream's 4 s sleep would have.
 */
describe('cancellation propagates to the upstream call', () => {
  let gw: RunningGateway;
  let marker: string;
  before(async () => {
    const { tempDir } = await import('../helpers/gateway.js');
    marker = `${tempDir('marker')}/sleep.log`;
    gw = await startGateway(`${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
  fix: { prefix: fix, domain: public, stdio: { command: node, args: ["${FIXTURE}", "--marker", "${marker}"] } }
lanes:
  a: { servers: [fix] }
`);
  });
  after(async () => gw.stop());

  it('legacy: notifications/cancelled stops the upstream work; nothing completes later', async () => {
    const { readFileSync, existsSync } = await import('node:fs');
    const token = await gw.token('a');
    const h = await legacySession(gw.url, token);
    await fetch(gw.url, {
      method: 'POST',
      headers: h,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fix_echo', arguments: { text: 'warm' } } }),
    });
    const started = Date.now();
    const pending = fetch(gw.url, {
      method: 'POST',
      headers: h,
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'fix_sleep', arguments: { ms: 4000 } } }),
    });
    await new Promise((r) => setTimeout(r, 300));
    const cancel = await fetch(gw.url, {
      method: 'POST',
      headers: h,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3, reason: 'user' } }),
    });
    assert.equal(cancel.status, 202);
    const res = await pending;
    const body = (await res.json()) as { error?: { code: number } };
    assert.ok(Date.now() - started < 3000, 'the call ended before the upstream sleep would have');
    assert.equal(body.error?.code, -32800);
    const seen = await waitFor(() => existsSync(marker) && readFileSync(marker, 'utf8').includes('cancelled'), 3000);
    assert.ok(seen, 'the upstream received the cancellation');
    await new Promise((r) => setTimeout(r, 4200 - (Date.now() - started)));
    assert.ok(!readFileSync(marker, 'utf8').includes('completed'), 'the upstream work never completed');
  });
});
