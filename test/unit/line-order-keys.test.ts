import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { linkOrderOf } from '../../src/link/order.js';
import { laneBodyParams } from '../../src/link/forward.js';
import { LINK } from '../../src/link/protocol.js';
import { PING_ORDER } from '../../src/link/order.js';
import type { RpcNotification } from '../../src/rpc/jsonrpc.js';
import { LineReader } from '../../src/rpc/line-reader.js';
import { LineWriter, SLICE_CHARS } from '../../src/rpc/line-writer.js';
import { LinePeer } from '../../src/rpc/peer.js';
import { LARGE_TURN_CHARS } from '../../src/rpc/turn.js';

/**
 * Issue 19: on the link, a lane's lines keep their order among that lane's only. Another lane's
 * small call passes a lane's long request (as written and as read); the same lane's lines, and
 * every line without a lane, still wait behind it.
 */

const of = (lane: string | undefined, method: string, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({
    jsonrpc: '2.0',
    method,
    params: { ...extra, ...(lane === undefined ? {} : { _meta: { 'lanegate/caller': { lane, era: 'modern', holder: '' } } }) },
  });
const keyOfLine = (line: string): string | undefined => linkOrderOf(JSON.parse(line));

/** A link that pushes back until `read` starts reading it; `wire` is what crossed it. */
const link = () => {
  const out = new PassThrough({ highWaterMark: 1024 });
  out.setEncoding('utf8');
  const seen = { wire: '' };
  return { out, seen, read: () => out.on('data', (c: string) => (seen.wire += c)) };
};

const settle = async (w: LineWriter, read: () => void): Promise<void> => {
  read();
  for (let i = 0; i < 2000 && w.queued > 0; i += 1) await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
  assert.equal(w.queued, 0, 'everything was written');
};

/** The whole lines the wire holds, in the order they were completed, each with the key its last slice named. */
const linesOf = (wire: string): { line: string; key: string | undefined }[] => {
  const lines: { line: string; key: string | undefined }[] = [];
  const r = new LineReader({
    maxBytes: 64 << 20,
    sliced: true,
    onLine: (line, key) => lines.push({ line, key }),
    onOversize: () => assert.fail('oversize'),
  });
  r.push(wire);
  return lines;
};

const longA = of('a', 'tools/call', { text: 'x'.repeat(SLICE_CHARS * 4) });

describe('link order by lane', { timeout: 10_000 }, () => {
  it('the keys: a forward by its caller block, another request by its _meta caller, a response or no caller by none', () => {
    assert.equal(keyOfLine(of('a', 'x')), 'a');
    assert.equal(keyOfLine(of(undefined, 'x')), undefined);
    assert.equal(linkOrderOf({ jsonrpc: '2.0', id: 1, result: {} }), undefined);
    const fwd = laneBodyParams('tools/call', '{"params":{}}', { lane: 'b', era: 'modern', holder: 'h' });
    assert.equal(linkOrderOf({ jsonrpc: '2.0', id: 2, method: LINK.forward, params: fwd as never }), 'b', 'as written');
    const read = JSON.parse(`{"jsonrpc":"2.0","id":2,"method":"${LINK.forward}","params":${fwd.parts.join('')}}`);
    assert.equal(linkOrderOf(read), 'b', 'as read');
    // A lane's own params never name the order of a forward: only the front's caller block does.
    const forged = JSON.parse(
      `{"jsonrpc":"2.0","id":3,"method":"${LINK.forward}","params":{"lanegate/lane-body":{"lanegate/caller":{"lane":"b"}}}}`,
    );
    assert.equal(linkOrderOf(forged), undefined);
  });

  it("written: another lane's small call passes a lane's long request; that lane's own lines and a line without a lane wait behind it", async () => {
    const { out, seen, read } = link();
    const w = new LineWriter(out, true);
    const cancelA = of('a', 'notifications/cancelled', { requestId: 5 });
    const callB = of('b', 'tools/call', { text: 'q' });
    const ping = of(undefined, 'ping');
    const callBAfterPing = of('b', 'tools/call', { text: 'after the ping' });
    w.write(longA, false, 'a');
    w.write(cancelA, false, 'a');
    w.write(callB, false, 'b');
    w.write(ping, false, undefined);
    w.write(callBAfterPing, false, 'b');
    await settle(w, read);
    const lines = linesOf(seen.wire).map((l) => l.line);
    assert.deepEqual(lines, [callB, longA, cancelA, ping, callBAfterPing]);
    const order = linesOf(seen.wire);
    assert.equal(order[1]?.key, 'a', "the long line's last slice names its lane");
    assert.ok(seen.wire.indexOf(callB) < seen.wire.indexOf('\u001e1:a '), "lane b's call went out before lane a's last slice");
  });

  it('written: two lanes with long requests take turns, each in its own order; without keys, one waits for the other as before', async () => {
    const longB = of('b', 'tools/call', { text: 'y'.repeat(SLICE_CHARS * 4) });
    const smallA = of('a', 'x');
    const smallB = of('b', 'y');
    for (const keyed of [true, false]) {
      const { out, seen, read } = link();
      const w = new LineWriter(out, true);
      w.write(longA, false, keyed ? 'a' : undefined);
      w.write(longB, false, keyed ? 'b' : undefined);
      w.write(smallA, false, keyed ? 'a' : undefined);
      w.write(smallB, false, keyed ? 'b' : undefined);
      await settle(w, read);
      const lines = linesOf(seen.wire).map((l) => l.line);
      assert.deepEqual([...lines].sort(), [longA, longB, smallA, smallB].sort());
      assert.ok(lines.indexOf(longA) < lines.indexOf(smallA) && lines.indexOf(longB) < lines.indexOf(smallB), 'each lane in its order');
      if (!keyed) assert.deepEqual(lines, [longA, longB, smallA, smallB], 'without keys: the order written');
      else {
        // Interleaved: lane b's first slice went out before lane a's last.
        const firstB = seen.wire.indexOf('\u001e2+');
        const lastA = seen.wire.indexOf('\u001e1:a ');
        assert.ok(firstB > 0 && firstB < lastA, 'the two long lines took turns');
      }
    }
  });

  it('written: a key a frame cannot carry (a space, a control character) keeps every line in order', async () => {
    const { out, seen, read } = link();
    const w = new LineWriter(out, true);
    const callB = of('b', 'x');
    w.write(longA, false, 'a b');
    w.write(callB, false, 'b');
    await settle(w, read);
    assert.deepEqual(
      linesOf(seen.wire).map((l) => [l.line, l.key]),
      [
        [longA, undefined],
        [callB, undefined],
      ],
    );
  });

  it("read: another lane's small line is handled while a lane's long line is still being parsed; its own lane's and an unkeyed line wait", async () => {
    // The wire as a keyed writer makes it: lane a's long request, then the others, all in one chunk.
    const { out, seen, read } = link();
    const w = new LineWriter(out, true);
    w.write(longA, false, 'a');
    await settle(w, read);
    const wire = `${seen.wire}${of('a', 'a-after')}\n${of('b', 'b-call')}\n${of(undefined, 'unkeyed')}\n${of('b', 'b-after-unkeyed')}\n${of('c', 'c-call')}\n`;
    const input = new PassThrough();
    const got: string[] = [];
    new LinePeer(
      input,
      new PassThrough(),
      { onNotification: (n: RpcNotification) => got.push(n.method) },
      { sliced: true, orderOf: linkOrderOf },
    );
    input.write(wire);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(got, ['b-call'], 'lane b at once, before the long line is parsed; nothing else yet');
    for (let i = 0; i < 500 && got.length < 6; i += 1) await new Promise((r) => setImmediate(r));
    assert.deepEqual(got, ['b-call', 'tools/call', 'a-after', 'unkeyed', 'b-after-unkeyed', 'c-call']);
  });

  it('read: without orders (a child, or no orderOf), every line waits behind a long one, as before', async () => {
    const input = new PassThrough();
    const got: string[] = [];
    new LinePeer(input, new PassThrough(), { onNotification: (n: RpcNotification) => got.push(n.method) }, { sliced: true });
    input.write(`${longA}\n${of('b', 'b-call')}\n`);
    for (let i = 0; i < 500 && got.length < 2; i += 1) await new Promise((r) => setImmediate(r));
    assert.deepEqual(got, ['tools/call', 'b-call']);
  });

  it("read: a short answer behind long answers only goes on at once; behind a long notification it waits (a call's progress, then its result)", async () => {
    const answer = (id: number, text: string): string => `{"jsonrpc":"2.0","id":${id},"result":{"t":"${text}"}}`;
    const longAnswer = answer(1, 'r'.repeat(LARGE_TURN_CHARS * 2));
    const longNote = of(undefined, 'lanegate/notify', { t: 'n'.repeat(LARGE_TURN_CHARS * 2) });
    for (const [first, passes] of [
      [longAnswer, true],
      [longNote, false],
    ] as const) {
      const input = new PassThrough();
      const got: string[] = [];
      const peer = new LinePeer(
        input,
        new PassThrough(),
        { onNotification: (n: RpcNotification) => got.push(n.method) },
        { sliced: true, orderOf: linkOrderOf },
      );
      // Requests of the peer's own, so that their answers are taken.
      const pending = [1, 2].map((id) => peer.request('x', {}, 10_000).then(() => got.push(`answer ${id}`)));
      assert.ok(peer.isPending(1) && peer.isPending(2), 'the peer numbers its requests from 1');
      input.write(`${first}\n${answer(2, 'small')}\n`);
      for (let i = 0; i < 5; i += 1) await new Promise((r) => setImmediate(r));
      if (passes) assert.equal(got[0], 'answer 2', 'the short answer went first');
      for (let i = 0; i < 500 && got.length < 2; i += 1) await new Promise((r) => setImmediate(r));
      if (!passes) assert.deepEqual(got.slice(0, 2), ['lanegate/notify', 'answer 2'], 'the answer after the notification');
      else assert.deepEqual(got, ['answer 2', 'answer 1']);
      peer.close('done');
      await Promise.allSettled(pending);
    }
  });

  it("written from inside the stream's own write (a synchronous reader): nothing lost, nothing overtaken, nothing left queued", async () => {
    const out = new PassThrough({ highWaterMark: 64 });
    const w = new LineWriter(out, true);
    const got: string[] = [];
    const r = new LineReader({
      maxBytes: 64 << 20,
      sliced: true,
      onLine: (l) => got.push((JSON.parse(l) as { n: string }).n),
      onOversize: () => assert.fail('oversize'),
    });
    let nested = false;
    out.on('data', (c: Buffer) => {
      r.push(c);
      if (!nested && c.toString('latin1', 0, 8).startsWith('\u001e2:a ')) {
        nested = true;
        out.pause();
        setTimeout(() => out.resume(), 20);
        w.write('{"n":"B"}', false, 'b');
      }
    });
    const long = (t: string): string => `{"n":"${t}","p":"${'x'.repeat(SLICE_CHARS * 2)}"}`;
    w.write(long('R'), true);
    w.write(long('A1'), false, 'a');
    w.write(long('A2'), false, 'a');
    w.write('{"n":"A3"}', false, 'a');
    for (let i = 0; i < 400 && (got.length < 5 || w.queued > 0); i += 1) await new Promise((res) => setTimeout(res, i < 50 ? 0 : 5));
    assert.ok(nested, 'the write from inside the stream happened');
    assert.deepEqual([...got].sort(), ['A1', 'A2', 'A3', 'B', 'R']);
    assert.ok(got.indexOf('A1') < got.indexOf('A2') && got.indexOf('A2') < got.indexOf('A3'), `lane a in order: ${got.join(' ')}`);
    assert.equal(w.queued, 0);
  });

  it("a cancellation keeps its request's order: framed with the lane's key, it waits behind that lane's long request and no one else's", async () => {
    const wire = new PassThrough();
    const reads: string[] = [];
    const sender = new LinePeer(new PassThrough(), wire, {}, { sliced: true, orderOf: linkOrderOf });
    const text: string[] = [];
    wire.on('data', (c: Buffer) => text.push(c.toString('latin1')));
    const ac = new AbortController();
    const call = sender.requestRaw(
      LINK.forward,
      laneBodyParams('tools/call', `{"params":{"t":"${'z'.repeat(SLICE_CHARS * 3)}"}}`, { lane: 'a', era: 'modern', holder: 'h' }),
      10_000,
      ac.signal,
    );
    ac.abort();
    await assert.rejects(call, /cancelled/);
    sender.notify('other', { _meta: { 'lanegate/caller': { lane: 'b', era: 'modern', holder: '' } } });
    for (let i = 0; i < 500 && !text.join('').includes('notifications/cancelled'); i += 1) await new Promise((r) => setImmediate(r));
    const all = text.join('');
    const cancelAt = all.indexOf('notifications/cancelled');
    assert.ok(cancelAt > 0, 'the cancellation was sent');
    const head = all.slice(all.lastIndexOf('\u001e', cancelAt), cancelAt);
    assert.ok(head.startsWith('\u001e') && /^\d+:a \{/.test(head.slice(1)), `as one frame naming lane a: ${head}`);
    assert.ok(all.indexOf('"other"') < all.indexOf('\u001e1:a '), "lane b's line passed lane a's long request");
    assert.ok(cancelAt > all.indexOf('\u001e1:a '), 'the cancellation after its request');
    // The reader keeps the same order: lane b's line first, then the request, then its cancellation.
    const input = new PassThrough();
    new LinePeer(
      input,
      new PassThrough(),
      {
        onNotification: (n: RpcNotification) => reads.push(n.method),
        onRequest: (req) => {
          reads.push(req.method);
          return {};
        },
      },
      { sliced: true, orderOf: linkOrderOf },
    );
    input.write(all);
    for (let i = 0; i < 500 && reads.length < 3; i += 1) await new Promise((r) => setImmediate(r));
    assert.deepEqual(reads, ['other', LINK.forward, 'notifications/cancelled']);
  });

  it("the front's liveness ping waits for no lane; a session's end waits for its lane's lines", () => {
    assert.equal(linkOrderOf({ jsonrpc: '2.0', id: 1, method: 'ping' }), PING_ORDER);
    assert.ok(!/^[a-z][a-z0-9-]*$/.test(PING_ORDER), 'no lane can be named so');
    assert.equal(linkOrderOf({ jsonrpc: '2.0', id: 2, method: LINK.sessionEnded, params: { lane: 'a', holder: 's' } }), 'a');
  });

  it('a frame that names no end to its key is a protocol error, never a line handed on', async () => {
    const input = new PassThrough();
    const got: string[] = [];
    const problems: string[] = [];
    new LinePeer(
      input,
      new PassThrough(),
      { onNotification: (n) => got.push(n.method), onProtocolError: (d) => problems.push(d) },
      { sliced: true, orderOf: linkOrderOf },
    );
    input.write(`\u001e7+{"jsonrpc":"2.0",\n\u001e7:a{"method":"x"}\n${of('b', 'after')}\n`);
    for (let i = 0; i < 20 && got.length < 1; i += 1) await new Promise((r) => setImmediate(r));
    assert.deepEqual(got, ['after']);
    assert.equal(problems.length, 1);
    assert.match(problems[0] ?? '', /slice frame of stream 7/);
  });
});
