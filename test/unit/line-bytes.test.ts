import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { LineReader, type Oversize, oversizeResponseId } from '../../src/rpc/line-reader.js';
import { LinePeer } from '../../src/rpc/peer.js';
import { LARGE_TURN_CHARS } from '../../src/rpc/turn.js';
import { queueBusySteps } from '../helpers/busy-turns.js';

const reader = (maxBytes: number) => {
  const lines: string[] = [];
  const over: { o: Oversize; final: boolean }[] = [];
  const r = new LineReader({ maxBytes, onLine: (l) => lines.push(l), onOversize: (o, final) => over.push({ o, final }) });
  return { r, lines, over };
};

/** A deterministic pseudo-random sequence (the chunk sizes of a run). */
const rng = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};

describe('line reader, bytes: each line decoded once, the same lines as the text reader', () => {
  it('agrees with the text reader on multi-byte text cut at every kind of place', () => {
    const next = rng(7);
    const msgs = Array.from({ length: 40 }, (_, i) =>
      JSON.stringify({ jsonrpc: '2.0', id: i, result: { t: `é😀€${'x'.repeat(Math.floor(next() * 200_000))}😀\\"q` } }),
    );
    const bytes = Buffer.from(`${msgs.join('\n')}\n`);
    const b = reader(64 * 1024 * 1024);
    for (let at = 0; at < bytes.length; ) {
      const n = 1 + Math.floor(next() * 70_000);
      b.r.push(bytes.subarray(at, at + n));
      at += n;
    }
    assert.deepEqual(b.lines, msgs, 'every line whole, in order, no replacement characters');
    assert.equal(b.over.length, 0);
  });

  it('a line past the bound is counted in bytes and dropped as it streams; its id is still found; the next line is read', () => {
    const b = reader(10_000);
    const big = `{"jsonrpc":"2.0","result":{"t":"${'é'.repeat(20_000)}"},"id":42}`;
    const bytes = Buffer.from(`${big}\n{"jsonrpc":"2.0","method":"after"}\n`);
    for (let at = 0; at < bytes.length; at += 3001) b.r.push(bytes.subarray(at, at + 3001));
    assert.deepEqual(b.lines, ['{"jsonrpc":"2.0","method":"after"}']);
    assert.deepEqual(
      b.over.map((x) => x.final),
      [false, true],
    );
    const end = b.over[1]?.o as Oversize;
    assert.equal(end.bytes, Buffer.byteLength(big));
    assert.ok(end.head.startsWith('{"jsonrpc":"2.0","result"'));
    assert.equal(oversizeResponseId(end), 42);
  });
});

describe('a peer handles a long line in a turn of its own, in order', () => {
  it('a long message and the short lines read after it in the same chunk are handled in order; an end right after loses none', async () => {
    const toPeer = new PassThrough();
    const fromPeer = new PassThrough();
    const seen: string[] = [];
    const peer = new LinePeer(toPeer, fromPeer, { onNotification: (n) => seen.push(`${n.method} ${String(n.params?.t).length}`) });
    fromPeer.resume();
    const big = 'b'.repeat(LARGE_TURN_CHARS + 10);
    const answer = peer.request('two', {}, 5000);
    toPeer.end(
      `${JSON.stringify({ jsonrpc: '2.0', method: 'big', params: { t: big } })}\n{"jsonrpc":"2.0","method":"n1","params":{"t":"s"}}\n{"jsonrpc":"2.0","id":1,"result":{"t":"small"}}\n`,
    );
    assert.deepEqual(await answer, { t: 'small' }, 'the answer read before the end is delivered, not failed by the end');
    assert.deepEqual(seen, [`big ${big.length}`, 'n1 1']);
  });

  it("the lines behind a long one wait for its parse, not for the turn queue's other steps (attack round 9)", async () => {
    // 300 queued steps of 5 ms each: 1.5 s of other large work waiting for its turns.
    const busy = queueBusySteps(300, 5);
    const toPeer = new PassThrough();
    const fromPeer = new PassThrough();
    const seen: string[] = [];
    const peer = new LinePeer(toPeer, fromPeer, { onNotification: (n) => seen.push(n.method) });
    fromPeer.resume();
    const answer = peer.request('ping', {}, 5000);
    const big = JSON.stringify({ jsonrpc: '2.0', method: 'big', params: { t: 'b'.repeat(LARGE_TURN_CHARS + 10) } });
    toPeer.write(`${big}\n{"jsonrpc":"2.0","id":1,"result":{}}\n`);
    assert.deepEqual(await answer, {});
    assert.deepEqual(seen, ['big'], 'the long line came first, in order');
    assert.ok(busy.run() < 50, `the answer behind the long line waited for ${busy.run()} of the 300 queued steps`);
    await busy.all();
  });

  it('a long line that is not JSON is a protocol error, and the lines after it are still read', async () => {
    const toPeer = new PassThrough();
    const fromPeer = new PassThrough();
    const errors: string[] = [];
    const peer = new LinePeer(toPeer, fromPeer, { onProtocolError: (d) => errors.push(d) });
    fromPeer.resume();
    const ok = peer.request('x', {}, 5000);
    toPeer.write(
      `{"jsonrpc":"2.0","id":1,"result":{"t":"${'z'.repeat(LARGE_TURN_CHARS)}"\n{"jsonrpc":"2.0","id":1,"result":{"ok":true}}\n`,
    );
    assert.deepEqual(await ok, { ok: true });
    assert.deepEqual(errors, ['unparseable line']);
    peer.close('done');
  });
});
