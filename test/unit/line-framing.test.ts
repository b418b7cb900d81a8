import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { LinePeer, MAX_LINE } from '../../src/rpc/peer.js';
import type { RpcNotification } from '../../src/rpc/jsonrpc.js';

/** A deterministic pseudo-random sequence (failures are reproducible). */
const rng = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};

/** A LinePeer reading `input`; resolves with what it received once `count` notifications arrived. */
const reader = (count: number) => {
  const input = new PassThrough();
  const got: RpcNotification[] = [];
  const problems: string[] = [];
  let done: () => void = () => undefined;
  const all = new Promise<void>((r) => {
    done = r;
  });
  new LinePeer(input, new PassThrough(), {
    onNotification: (n) => {
      got.push(n);
      if (got.length === count) done();
    },
    onProtocolError: (d) => problems.push(d),
  });
  return { input, got, problems, all };
};

describe('NDJSON framing on the link', () => {
  it('reads every message once and whole, however the bytes are cut (multibyte characters, many lines a chunk, long lines)', async () => {
    const next = rng(7);
    for (let round = 0; round < 30; round++) {
      const sent: RpcNotification[] = Array.from({ length: 1 + Math.floor(next() * 40) }, (_, i) => ({
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { i, text: 'é€😀 '.repeat(Math.floor(next() * (next() < 0.1 ? 40_000 : 30))) },
      }));
      // Blank lines and CRLF endings between messages are tolerated as before.
      const bytes = Buffer.from(
        sent.map((m, i) => `${JSON.stringify(m)}${i % 3 === 0 ? '\r\n' : '\n'}${i % 5 === 0 ? '\n' : ''}`).join(''),
      );
      const r = reader(sent.length);
      let at = 0;
      while (at < bytes.length) {
        const n = 1 + Math.floor(next() * (next() < 0.5 ? 7 : 70_000));
        r.input.write(bytes.subarray(at, at + n));
        at += n;
      }
      await r.all;
      assert.deepEqual(r.got, sent, `round ${round}`);
      assert.deepEqual(r.problems, []);
    }
  });

  it('drops a line longer than the limit as a protocol error, and reads the next message', async () => {
    const r = reader(1);
    const chunk = 'x'.repeat(8 * 1024 * 1024);
    for (let sent = 0; sent <= MAX_LINE; sent += chunk.length) r.input.write(chunk);
    r.input.write(`\n${JSON.stringify({ jsonrpc: '2.0', method: 'after' })}\n`);
    await r.all;
    assert.equal(r.got[0]?.method, 'after');
    assert.match(r.problems[0] ?? '', /^line too long/);
  });
});
