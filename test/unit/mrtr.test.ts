import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Mrtr } from '../../src/front/mcp/mrtr.js';
import { CallStreams } from '../../src/front/transport/call-streams.js';
import type { Dispatched } from '../../src/front/mcp/dispatch.js';

const park = (m: Mrtr, lane = 'a', call = 'tools/call:"x"') =>
  m.park(
    {
      lane,
      callKey: call,
      done: Promise.resolve({ status: 200 } as Dispatched),
      stream: new CallStreams().start(lane, undefined, false),
      pending: new Map(),
    },
    () => undefined,
  );

describe('requestState is sealed, bound, one-shot and short-lived', () => {
  it('resumes the parked call exactly once, for its own lane and call', () => {
    const m = new Mrtr();
    const state = park(m);
    // Another lane's refusal is word for word another call's: it does not say whose the state is.
    const otherLane = m.take(state, 'b', 'tools/call:"x"');
    assert.deepEqual(otherLane, { ok: false, reason: 'requestState is not valid for this call' }, 'another lane');
    assert.deepEqual(m.take(state, 'a', 'tools/call:"y"'), otherLane, 'another call');
    assert.equal(m.take(state, 'a', 'tools/call:"x"').ok, true);
    const again = m.take(state, 'a', 'tools/call:"x"');
    assert.deepEqual(again, { ok: false, reason: 'requestState is no longer valid (already used or expired)' });
  });
  it('refuses a tampered or forged state', () => {
    const m = new Mrtr();
    const state = park(m);
    const [body, mac] = state.split('.');
    const forgedBody = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body ?? '', 'base64url').toString()), lane: 'b' })).toString(
      'base64url',
    );
    assert.match(String((m.take(`${forgedBody}.${mac}`, 'b', 'tools/call:"x"') as { reason: string }).reason), /integrity/);
    assert.match(String((m.take(`${body}.${(mac ?? '').slice(1)}x`, 'a', 'tools/call:"x"') as { reason: string }).reason), /integrity/);
    assert.match(String((m.take('garbage', 'a', 'tools/call:"x"') as { reason: string }).reason), /malformed/);
    assert.match(
      String((new Mrtr().take(state, 'a', 'tools/call:"x"') as { reason: string }).reason),
      /integrity/,
      'another gateway process',
    );
  });
  it('refuses an expired state', async () => {
    const m = new Mrtr(5);
    const state = park(m);
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(m.take(state, 'a', 'tools/call:"x"').ok, false);
  });
});
