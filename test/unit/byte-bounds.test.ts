import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { ByteTurns } from '../../src/link/byte-turns.js';
import { SendBudget } from '../../src/front/transport/send-budget.js';
import { LineReader, type Oversize, oversizeResponseId } from '../../src/rpc/line-reader.js';
import { LineWriter, SLICE_CHARS } from '../../src/rpc/line-writer.js';
import { LinePeer } from '../../src/rpc/peer.js';

const readAll = (maxBytes: number, sliced = false) => {
  const lines: string[] = [];
  const over: { o: Oversize; final: boolean }[] = [];
  const r = new LineReader({ maxBytes, sliced, onLine: (l) => lines.push(l), onOversize: (o, final) => over.push({ o, final }) });
  return { r, lines, over };
};

describe('line reader: a line past the bound is counted, never held', () => {
  it('skips an over-long line across chunks, reports head and tail, and reads the next line', () => {
    const { r, lines, over } = readAll(1000);
    const big = `{"result":{"t":"${'x'.repeat(5000)}"},"jsonrpc":"2.0","id":7}`;
    for (let i = 0; i < big.length; i += 333) r.push(big.slice(i, i + 333));
    r.push('\n{"jsonrpc":"2.0","method":"after"}\n');
    assert.deepEqual(lines, ['{"jsonrpc":"2.0","method":"after"}']);
    assert.deepEqual(
      over.map((x) => x.final),
      [false, true],
    );
    const end = over[1]?.o as Oversize;
    assert.equal(end.bytes, Buffer.byteLength(big));
    assert.equal(oversizeResponseId(end), 7);
    // At the start only an id written first can be known; this one is written last.
    assert.equal(oversizeResponseId(over[0]?.o as Oversize, false), undefined);
  });

  it('counts bytes, not characters: multibyte text past the bound is caught', () => {
    const { r, lines, over } = readAll(1000);
    r.push(`{"jsonrpc":"2.0","id":3,"result":{"t":"${'é'.repeat(600)}"}}\n`);
    assert.equal(lines.length, 0);
    assert.equal(oversizeResponseId(over[0]?.o as Oversize), 3);
  });

  it('never takes a server request or a notification for a response to fail', () => {
    const req: Oversize = { head: '{"method":"sampling/createMessage","params":{', tail: '},"jsonrpc":"2.0","id":1}', bytes: 1e6 };
    assert.equal(oversizeResponseId(req), undefined);
    const idFirst: Oversize = { head: '{"jsonrpc":"2.0","id":12,"result":{"content"', tail: 'x"}]}}', bytes: 1e6 };
    assert.equal(oversizeResponseId(idFirst, false), 12);
  });

  it('joins slice frames written between other lines, surrogate pairs and all', async () => {
    // A pipe that pushes back: nothing reads it until every line was written.
    const out = new PassThrough({ highWaterMark: 1024 });
    out.setEncoding('utf8');
    let wire = '';
    const w = new LineWriter(out, true);
    const emoji = '😀'.repeat(SLICE_CHARS); // 2 code units each: a cut could fall inside a pair
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { t: `a${emoji}` } });
    w.write(big, true);
    w.write('{"jsonrpc":"2.0","id":2,"result":{}}', true);
    w.write('{"jsonrpc":"2.0","method":"n"}', false);
    out.on('data', (c: string) => {
      wire += c;
    });
    for (let i = 0; i < 1000 && w.queued > 0; i += 1) await new Promise((r) => setImmediate(r));
    assert.equal(w.queued, 0);
    const { r, lines } = readAll(64 * 1024 * 1024, true);
    r.push(wire);
    // The small lines were not held behind the large one (written after it, they arrive first).
    assert.equal(lines.length, 3);
    assert.deepEqual(lines.slice(0, 2), ['{"jsonrpc":"2.0","id":2,"result":{}}', '{"jsonrpc":"2.0","method":"n"}']);
    assert.ok(lines[2] === big, 'the large line arrives whole and unchanged');
    assert.ok(wire.split('\n').length > 4, 'the large line went out in slices');
  });

  it('a peer fails exactly the request whose answer was too long, at once, and serves the next', async () => {
    const toPeer = new PassThrough();
    const fromPeer = new PassThrough();
    const peer = new LinePeer(
      toPeer,
      fromPeer,
      {},
      { maxLine: 4096, oversize: (o) => ({ code: -32004, message: `too large: ${o.bytes}` }) },
    );
    fromPeer.resume();
    const a = peer.request('big', {}, 5000);
    const b = peer.request('small', {}, 5000);
    toPeer.write(`{"jsonrpc":"2.0","id":1,"result":{"t":"${'x'.repeat(10_000)}`);
    await assert.rejects(a, /too large: /); // failed while the line is still streaming
    toPeer.write('"}}\n{"jsonrpc":"2.0","id":2,"result":{"ok":true}}\n');
    assert.deepEqual(await b, { ok: true });
    peer.close('done');
  });
});

describe('send budget and byte turns', () => {
  it('holds answer bytes per lane and in all, refuses past either by name, and releases once', () => {
    const b = new SendBudget(() => ({ perConnection: 100, perLane: 150, total: 200 }));
    const h1 = b.hold('a', 80);
    assert.ok(h1.ok);
    const h2 = b.hold('a', 80);
    assert.equal(h2.ok, false);
    assert.equal(!h2.ok && h2.setting, 'gateway.limits.unsentBytesPerLane');
    assert.equal(b.hold('a', 101).ok === false && 'x', 'x');
    const other = b.hold('b', 100);
    assert.ok(other.ok);
    const h3 = b.hold('c', 30);
    assert.equal(!h3.ok && h3.setting, 'gateway.limits.unsentBytes');
    if (h1.ok) {
      h1.release();
      h1.release();
    }
    assert.equal(b.of('a'), 0);
    assert.equal(b.total, 100);
    assert.ok(b.hold('c', 30).ok);
  });

  it('runs a lane’s large requests while their bytes fit, queues the rest FIFO, and never another lane', async () => {
    const t = new ByteTurns(() => 100);
    const a1 = t.enter('a', 60);
    const a2 = t.enter('a', 60);
    const a3 = t.enter('a', 10);
    const b1 = t.enter('b', 90);
    assert.equal(a1.kind, 'run');
    assert.equal(a2.kind, 'wait');
    assert.equal(a3.kind, 'wait', 'FIFO: a small request does not overtake a waiting large one');
    assert.equal(b1.kind, 'run');
    const alone = new ByteTurns(() => 100).enter('z', 500);
    assert.equal(alone.kind, 'run', 'one request larger than the bound runs alone');
    if (a1.kind === 'run') a1.release();
    const r2 = a2.kind === 'wait' ? await a2.started : undefined;
    const r3 = a3.kind === 'wait' ? await a3.started : undefined;
    assert.equal(t.inFlightOf('a'), 70);
    r2?.();
    r3?.();
    assert.equal(t.inFlightOf('a'), 0);
  });
});

describe('JSON depth check', () => {
  it('agrees with a character-by-character scan on random texts, escapes and long strings included', async () => {
    const { jsonDepthOver } = await import('../../src/front/transport/body.js');
    const naive = (text: string, limit: number): boolean => {
      let depth = 0;
      let inString = false;
      for (let i = 0; i < text.length; i += 1) {
        const ch = text.charCodeAt(i);
        if (inString) {
          if (ch === 92) i += 1;
          else if (ch === 34) inString = false;
          continue;
        }
        if (ch === 34) inString = true;
        else if (ch === 123 || ch === 91) {
          depth += 1;
          if (depth > limit) return true;
        } else if (ch === 125 || ch === 93) depth -= 1;
      }
      return false;
    };
    let seed = 42;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const alphabet = ['{', '}', '[', ']', '"', '\\', 'a', 'b', ' ', ',', ':', '\\"', '"x"', '{"k":"[[["}'];
    for (let c = 0; c < 3000; c += 1) {
      const parts: string[] = [];
      for (let k = rnd(60); k > 0; k -= 1) parts.push(alphabet[rnd(alphabet.length)] ?? '');
      const text = parts.join('');
      const limit = 1 + rnd(6);
      assert.equal(jsonDepthOver(text, limit), naive(text, limit), JSON.stringify(text));
    }
    const long = `{"a":"${'[{'.repeat(1_000_000)}","b":[[[[1]]]]}`;
    assert.equal(jsonDepthOver(long, 3), true);
    assert.equal(jsonDepthOver(long, 5), false);
  });

  it('is linear in a long string of spread escapes (attack round 10: 3.75 MB of `x\\n` held the front 27.8 s)', async () => {
    const { jsonDepthOver, jsonDepthOverPaced } = await import('../../src/front/transport/body.js');
    const body = (n: number): string => JSON.stringify({ params: { arguments: { text: 'x\n'.repeat(n) } } });
    const cpu = (text: string): number => {
      let best = Number.POSITIVE_INFINITY;
      for (let k = 0; k < 3; k += 1) {
        const t = process.cpuUsage();
        jsonDepthOver(text, 64);
        const d = process.cpuUsage(t);
        best = Math.min(best, (d.user + d.system) / 1000);
      }
      return best;
    };
    const small = cpu(body(200_000));
    const large = cpu(body(800_000));
    // Linear: ~4x. The quadratic search took 2.2 s at 800,000 characters (and 15x per doubling).
    assert.ok(large / Math.max(small, 2) < 8, `${small.toFixed(1)} ms -> ${large.toFixed(1)} ms of CPU`);
    assert.ok(large < 500, `${large.toFixed(0)} ms of CPU for 1.6 MB`);
    // In steps: the same answer, and a pause between every 200,000 loop iterations (a string is one).
    let pauses = 0;
    const wide = `{"t":"${'x\\n'.repeat(100_000)}","a":[${'1,'.repeat(500_000)}${'['.repeat(70)}${']'.repeat(70)}]}`;
    assert.equal(
      await jsonDepthOverPaced(wide, 64, async () => {
        pauses += 1;
      }),
      true,
    );
    assert.ok(pauses >= 4, `${pauses} pauses`);
    assert.equal(jsonDepthOver(wide, 64), true);
    assert.equal(jsonDepthOver(wide, 72), false);
    assert.equal(await jsonDepthOverPaced(body(800_000), 64, async () => undefined), false);
  });
});

describe('a lane is weighed by the answers it has been getting', () => {
  it('remembers a lane’s largest recent answer for a while, refused ones included, and forgets it after', () => {
    let now = 1_000;
    const b = new SendBudget(
      () => ({ perConnection: 100, perLane: 150, total: 1000 }),
      () => now,
    );
    assert.equal(b.expected('a'), 0);
    const h = b.hold('a', 90);
    assert.ok(h.ok);
    assert.equal(b.expected('a'), 90);
    assert.equal(b.hold('a', 120).ok, false, 'over the connection budget');
    assert.equal(b.expected('a'), 120, 'a refused answer counts too: it was carried all the same');
    assert.equal(b.expected('b'), 0, 'per lane');
    now += 31_000;
    assert.equal(b.expected('a'), 0);
  });
});

describe('byte turns share the bound among active lanes', () => {
  it('a lane gets a smaller share while another is active, and its waiting request starts when the share grows back', async () => {
    let active = 2;
    const t = new ByteTurns(() => Math.floor(100 / active));
    const a1 = t.enter('a', 40);
    const a2 = t.enter('a', 40);
    assert.equal(a1.kind, 'run');
    assert.equal(a2.kind, 'wait', 'two lanes active: 50 each, so 80 does not fit');
    active = 1;
    t.tick();
    const r2 = a2.kind === 'wait' ? await a2.started : undefined;
    assert.equal(t.inFlightOf('a'), 80, 'alone again: the whole bound');
    r2?.();
    if (a1.kind === 'run') a1.release();
  });
});
