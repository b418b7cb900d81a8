import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { LineReader } from '../../src/rpc/line-reader.js';
import { LineWriter, SLICE_CHARS } from '../../src/rpc/line-writer.js';
import { queueBusySteps } from '../helpers/busy-turns.js';

/** A pipe that pushes back (a small buffer, not read until `settle` starts reading it); what crossed it. */
const pipe = () => {
  const out = new PassThrough({ highWaterMark: 1024 });
  out.setEncoding('utf8');
  const seen = { wire: '' };
  const read = (): void => {
    out.on('data', (c: string) => {
      seen.wire += c;
    });
  };
  return { out, seen, read };
};

const settle = async (w: LineWriter, read: () => void): Promise<void> => {
  read();
  for (let i = 0; i < 2000 && w.queued > 0; i += 1) await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
  assert.equal(w.queued, 0, 'everything was written');
};

const linesOf = (wire: string, sliced: boolean): string[] => {
  const lines: string[] = [];
  const r = new LineReader({ maxBytes: 64 * 1024 * 1024, sliced, onLine: (l) => lines.push(l), onOversize: () => assert.fail('oversize') });
  r.push(wire);
  return lines;
};

// Two code units a character: a cut at SLICE_CHARS would fall inside a pair.
const bigRequest = JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { t: `ab${'😀'.repeat(SLICE_CHARS)}` } });
// (The text before the first pair is 63 characters: odd, so the pairs sit across every even cut.)
if (bigRequest.indexOf('😀') % 2 !== 1) throw new Error('bigRequest must put a pair across each cut');

describe('line writer: a long line is paced and keeps its order', { timeout: 10_000 }, () => {
  it('a link: a long request goes out in slices; a notification and a response written after it wait behind it', async () => {
    const { out, seen, read } = pipe();
    const w = new LineWriter(out, true);
    w.write(bigRequest, false);
    w.write('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}', false);
    w.write('{"jsonrpc":"2.0","id":9,"result":{}}', true);
    w.write('{"jsonrpc":"2.0","id":6,"method":"ping"}', false);
    await settle(w, read);
    assert.ok(seen.wire.split('\n').length > 4, 'the long request went out in slices');
    assert.deepEqual(linesOf(seen.wire, true), [
      bigRequest,
      '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}',
      '{"jsonrpc":"2.0","id":9,"result":{}}',
      '{"jsonrpc":"2.0","id":6,"method":"ping"}',
    ]);
  });

  it("a link: a call's long progress notification, then its result: the result does not overtake it", async () => {
    const { out, seen, read } = pipe();
    const w = new LineWriter(out, true);
    const progress = JSON.stringify({
      jsonrpc: '2.0',
      method: 'lanegate/notify',
      params: { token: 'lgp-1', message: 'p'.repeat(SLICE_CHARS * 2) },
    });
    const result = '{"jsonrpc":"2.0","id":4,"result":{"content":[]}}';
    const other = JSON.stringify({ jsonrpc: '2.0', id: 8, result: { t: 'o'.repeat(SLICE_CHARS * 2) } });
    w.write(progress, false);
    w.write(result, true);
    w.write(other, true);
    await settle(w, read);
    assert.deepEqual(linesOf(seen.wire, true), [progress, result, other]);
  });

  it('a link: two long requests in a row stay in order, with a long response taking turns between them', async () => {
    const { out, seen, read } = pipe();
    const w = new LineWriter(out, true);
    const second = bigRequest.replace('"id":5', '"id":7');
    const answer = JSON.stringify({ jsonrpc: '2.0', id: 3, result: { t: 'r'.repeat(SLICE_CHARS * 3) } });
    w.write(bigRequest, false);
    w.write(second, false);
    w.write(answer, true);
    await settle(w, read);
    const lines = linesOf(seen.wire, true);
    assert.equal(lines.length, 3);
    assert.ok(lines.indexOf(bigRequest) < lines.indexOf(second), 'the first request arrives first');
    assert.ok(lines.includes(answer));
  });

  it("a long line's pieces and the lines behind it go out in the next iterations, not behind the turn queue's other steps", async () => {
    // 300 queued steps of 5 ms each: 1.5 s of other large work waiting for its turns.
    const busy = queueBusySteps(300, 5);
    for (const sliced of [true, false]) {
      const { out, seen, read } = pipe();
      const w = new LineWriter(out, sliced);
      const ping = '{"jsonrpc":"2.0","id":9,"method":"ping"}';
      w.write(bigRequest, false);
      w.write(ping, false);
      await settle(w, read);
      assert.deepEqual(linesOf(seen.wire, sliced), [bigRequest, ping]);
    }
    assert.ok(busy.run() < 100, `the ping behind the long line waited for ${busy.run()} of the 300 queued steps`);
    await busy.all();
  });

  it("a child's stdin: a long line in pieces over turns, the next lines after it, byte for byte", async () => {
    const { out, seen, read } = pipe();
    const w = new LineWriter(out, false);
    let turns = 0;
    const counting = setInterval(() => {
      turns += 1;
    }, 0);
    w.write(bigRequest, false);
    w.write('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}', false);
    w.write('{"jsonrpc":"2.0","id":2,"result":{}}', true);
    assert.ok(w.queued > 0, 'not all written at once');
    await settle(w, read);
    clearInterval(counting);
    assert.equal(
      seen.wire,
      `${bigRequest}\n{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}\n{"jsonrpc":"2.0","id":2,"result":{}}\n`,
      'the child reads exactly the lines, in the order written (no frames, no cut pair)',
    );
    assert.ok(turns > 0, 'the event loop turned while the long line went out');
  });

  it("a child's stdin: short lines alone go out at once, as before", () => {
    const { out } = pipe();
    out.resume();
    const writes: string[] = [];
    const orig = out.write.bind(out);
    out.write = ((c: string) => {
      writes.push(c);
      return orig(c);
    }) as typeof out.write;
    const w = new LineWriter(out, false);
    w.write('{"a":1}', false);
    w.write('{"b":2}', true);
    assert.deepEqual(writes, ['{"a":1}\n', '{"b":2}\n']);
    assert.equal(w.queued, 0);
  });
});
