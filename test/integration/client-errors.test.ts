import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { REQUEST_MS } from '../../src/front/transport/connection-pool.js';
import { fixtureGateway, type RunningGateway } from '../helpers/gateway.js';

/**
 * Client errors node's HTTP parser raises before any handler runs, on a real gateway over raw
 * sockets. A request whose body never arrives whole got node's bare 408 with no body at the request
 * deadline (attack round 19): it now says what passed, as a JSON-RPC error, as every other limit
 * does. Node's own answers to the other errors are kept.
 */
describe('client errors before a handler runs', () => {
  let gw: RunningGateway;
  let token: string;
  before(async () => {
    gw = await fixtureGateway();
    token = await gw.token('a');
  });
  after(async () => {
    await gw?.stop();
  });

  /** Writes `head` on a raw connection and returns all it reads until the gateway closes it (or fails past `limitMs`). */
  const raw = (head: string, limitMs: number): Promise<{ text: string; ms: number }> =>
    new Promise((resolve, reject) => {
      const u = new URL(gw.url);
      const t0 = Date.now();
      const s = connect(Number(u.port), u.hostname);
      let text = '';
      const timer = setTimeout(() => {
        s.destroy();
        reject(new Error(`no close within ${limitMs} ms; read: ${text.slice(0, 200)}`));
      }, limitMs);
      s.setEncoding('utf8');
      s.on('data', (c: string) => {
        text += c;
      });
      s.on('error', () => undefined);
      s.on('close', () => {
        clearTimeout(timer);
        resolve({ text, ms: Date.now() - t0 });
      });
      s.write(head);
    });

  it('a body that never arrives whole: at the deadline, a 408 whose JSON-RPC error names it', async () => {
    const body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fix_echo","arguments":{"text":"x"}}}';
    const head = `POST /mcp HTTP/1.1\r\nHost: ${new URL(gw.url).host}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nContent-Length: ${body.length + 50}\r\n\r\n${body}`;
    const r = await raw(head, REQUEST_MS + 10_000);
    assert.match(r.text, /^HTTP\/1\.1 408 /);
    assert.match(r.text, /content-type: application\/json/i);
    const json = JSON.parse(r.text.slice(r.text.indexOf('\r\n\r\n') + 4)) as {
      error: { code: number; message: string; data: { value: number } };
    };
    assert.equal(json.error.code, -32600);
    assert.match(json.error.message, /did not arrive whole within 30 s/);
    assert.equal(json.error.data.value, REQUEST_MS);
    assert.ok(r.ms >= REQUEST_MS - 1000, `answered after ${r.ms} ms`);
  });

  it("a request line that is not HTTP gets node's 400, headers too large its 431; the gateway serves on", async () => {
    const bad = await raw('NOT HTTP AT ALL\r\n\r\n', 5_000);
    assert.match(bad.text, /^HTTP\/1\.1 400 Bad Request\r\n/);
    const big = await raw(`GET /healthz HTTP/1.1\r\nHost: ${new URL(gw.url).host}\r\nX-Pad: ${'p'.repeat(20_000)}\r\n\r\n`, 5_000);
    assert.match(big.text, /^HTTP\/1\.1 431 /);
    const ok = await raw(`GET /healthz HTTP/1.1\r\nHost: ${new URL(gw.url).host}\r\nConnection: close\r\n\r\n`, 5_000);
    assert.match(ok.text, /^HTTP\/1\.1 200 /);
  });
});
