import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RpcMessage } from '../../src/rpc/jsonrpc.js';
import { messagesOf, TooLarge } from '../../src/upstream/http-body.js';

const read = async (res: Response, limit = 1024): Promise<RpcMessage[]> => {
  const got: RpcMessage[] = [];
  await messagesOf(res, (m) => got.push(m), limit);
  return got;
};

/** A body that arrives in the given pieces, as a network would deliver it. */
const chunked = (parts: string[], type: string, headers: Record<string, string> = {}): Response =>
  new Response(
    new ReadableStream<Uint8Array>({
      start(c) {
        for (const p of parts) c.enqueue(new TextEncoder().encode(p));
        c.close();
      },
    }),
    { headers: { 'content-type': type, ...headers } },
  );

describe("an HTTP upstream's answer, read bounded", () => {
  it('reads a JSON body as one message', async () => {
    const got = await read(new Response('{"jsonrpc":"2.0","id":1,"result":{}}', { headers: { 'content-type': 'application/json' } }));
    assert.deepEqual(got, [{ jsonrpc: '2.0', id: 1, result: {} }]);
  });

  it('reads every SSE event in order, across chunk boundaries and multi-line data', async () => {
    const got = await read(
      chunked(
        [
          'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress"}\n\nda',
          'ta: {"jsonrpc":"2.0",\ndata: "id":2,"result":{"ok":true}}\n\n',
          ': comment only\n\n',
        ],
        'text/event-stream',
      ),
    );
    assert.deepEqual(got, [
      { jsonrpc: '2.0', method: 'notifications/progress' },
      { jsonrpc: '2.0', id: 2, result: { ok: true } },
    ]);
  });

  it('reads nothing from another content type or an empty 202', async () => {
    assert.deepEqual(await read(new Response('hello', { headers: { 'content-type': 'text/plain' } })), []);
    assert.deepEqual(await read(new Response(null, { status: 202 })), []);
  });

  it('refuses a body declared past the limit without reading it', async () => {
    const res = new Response('{"jsonrpc":"2.0","id":1,"result":{}}', {
      headers: { 'content-type': 'application/json', 'content-length': '5000' },
    });
    await assert.rejects(read(res), (e: unknown) => e instanceof TooLarge && e.bytes === 5000);
  });

  it('stops reading a body or an SSE stream once it passes the limit', async () => {
    const big = `{"jsonrpc":"2.0","id":1,"result":{"t":"${'x'.repeat(2000)}"}}`;
    await assert.rejects(read(chunked([big.slice(0, 900), big.slice(900)], 'application/json')), (e: unknown) => e instanceof TooLarge);
    await assert.rejects(read(chunked([`data: ${big}\n\n`], 'text/event-stream')), (e: unknown) => e instanceof TooLarge);
    // Just under the limit is read.
    assert.equal((await read(chunked([big], 'application/json'), big.length)).length, 1);
  });
});
