import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { laneBodyParams } from '../../src/link/forward.js';
import { linkOrderOf } from '../../src/link/order.js';
import { LINK } from '../../src/link/protocol.js';
import { SLICE_CHARS } from '../../src/rpc/line-writer.js';
import { LinePeer } from '../../src/rpc/peer.js';

/**
 * Attack round 14: a lane that sends 4 MB requests and drops each connection at once got its
 * byte budget back every time, while each request's line stayed queued on the host's link: past
 * the link's 64 MiB the host took no one's calls. A request that has not begun to go out when it
 * is cancelled is withdrawn: the host never sees it, and no cancellation is sent for it.
 */
const forward = (lane: string, fill: string) =>
  laneBodyParams('tools/call', `{"params":{"t":"${fill.repeat(SLICE_CHARS * 2)}"}}`, { lane, era: 'modern', holder: 'h' });

describe('a cancelled request that has not begun to go out is withdrawn', { timeout: 10_000 }, () => {
  it('waiting behind its lane: never written, no cancellation, its bytes no longer queued; the one being written is cancelled after it', async () => {
    const wire = new PassThrough({ highWaterMark: 1024 });
    const text: string[] = [];
    const peer = new LinePeer(new PassThrough(), wire, {}, { sliced: true, orderOf: linkOrderOf });
    const first = new AbortController();
    const second = new AbortController();
    const calls = [
      peer.requestRaw(LINK.forward, forward('a', 'x'), 10_000, first.signal),
      peer.requestRaw(LINK.forward, forward('a', 'y'), 10_000, second.signal),
    ];
    const queuedBoth = peer.queued;
    assert.ok(queuedBoth > SLICE_CHARS * 4, 'both wait to go out');
    second.abort();
    await assert.rejects(calls[1] as Promise<unknown>, /cancelled/);
    assert.ok(peer.queued < queuedBoth - SLICE_CHARS * 2, `the second request's bytes were let go (${queuedBoth} -> ${peer.queued})`);
    first.abort();
    await assert.rejects(calls[0] as Promise<unknown>, /cancelled/);
    wire.on('data', (c: Buffer) => text.push(c.toString('latin1')));
    for (let i = 0; i < 500 && peer.queued > 0; i += 1) await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    const all = text.join('');
    assert.equal(peer.queued, 0);
    assert.ok(all.includes('"t":"xx'), 'the first request went out (it had begun)');
    assert.ok(!all.includes('"t":"yy'), 'the second never did');
    assert.equal(all.split('notifications/cancelled').length - 1, 1, 'one cancellation: the first request');
    assert.ok(all.indexOf('"requestId":1') > all.lastIndexOf('"t":"xx'), 'after its request');
  });

  it('a request of another lane waiting behind a line without a lane is withdrawn too, and what waited behind it goes on', async () => {
    const wire = new PassThrough({ highWaterMark: 1024 });
    const text: string[] = [];
    const peer = new LinePeer(new PassThrough(), wire, { onNotification: () => undefined }, { sliced: true, orderOf: linkOrderOf });
    // A long line without a lane holds everything behind it.
    peer.notify('lanegate/notice', { t: 'n'.repeat(SLICE_CHARS * 2) });
    const ac = new AbortController();
    const call = peer.requestRaw(LINK.forward, forward('b', 'z'), 10_000, ac.signal);
    const after = peer.requestRaw(
      LINK.forward,
      laneBodyParams('tools/call', '{"params":{"t":"small"}}', { lane: 'b', era: 'modern', holder: 'h' }),
      10_000,
    );
    ac.abort();
    await assert.rejects(call, /cancelled/);
    wire.on('data', (c: Buffer) => text.push(c.toString('latin1')));
    for (let i = 0; i < 500 && !text.join('').includes('"small"'); i += 1) await new Promise((r) => setImmediate(r));
    const all = text.join('');
    assert.ok(all.includes('"small"'), 'the request behind the withdrawn one went out');
    assert.ok(!all.includes('"t":"zz') && !all.includes('notifications/cancelled'), 'the withdrawn one: neither it nor a cancellation');
    peer.close('done');
    await assert.rejects(after);
  });
});
