import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { ServerConfig } from '../../src/policy/model.js';
import { connectHttp } from '../../src/upstream/http-client.js';
import type { UpstreamConn } from '../../src/upstream/conn.js';

/**
 * An HTTP upstream's answer past gateway.limits.resultBytes is refused by name without being read
 * whole, whether it says its length (JSON with Content-Length) or not (an SSE stream). A small
 * Streamable HTTP server of the test's own, on loopback, answers `big` with `n` characters.
 */
const answer = (id: unknown, n: number): string =>
  JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'x'.repeat(n) }] } });

describe('HTTP upstream: resultBytes', () => {
  let server: Server;
  let conn: UpstreamConn;
  const limits: { detail: string; bytes?: number }[] = [];
  before(async () => {
    server = createServer((req, res) => {
      if (req.method !== 'POST') return void res.writeHead(req.method === 'DELETE' ? 200 : 405).end();
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => {
        body += c;
      });
      req.on('end', () => {
        const m = JSON.parse(body) as { id?: unknown; method: string; params?: { arguments?: { n?: number; sse?: boolean } } };
        if (m.id === undefined) return void res.writeHead(202).end();
        if (m.method === 'initialize') {
          res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' });
          res.end(
            JSON.stringify({
              jsonrpc: '2.0',
              id: m.id,
              result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'h', version: '1' } },
            }),
          );
          return;
        }
        const a = m.params?.arguments ?? {};
        const text = answer(m.id, a.n ?? 10);
        if (a.sse) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end(`event: message\ndata: ${text}\n\n`);
        } else {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(text);
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const cfg: ServerConfig = {
      name: 'web',
      prefix: 'web',
      domain: 'remote',
      enabled: true,
      share: 'auto',
      upstreamEra: 'legacy',
      transport: { kind: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: {} },
      perLaneLaunch: false,
      onDrift: 'report',
      idleMs: 60_000,
      callTimeoutMs: 10_000,
    } as ServerConfig;
    conn = await connectHttp(
      cfg,
      'a',
      new Map(),
      {
        onNotification: () => undefined,
        onServerRequest: async () => ({}),
        onExit: () => undefined,
        onLimit: (i) => limits.push(i),
      },
      64 * 1024,
    );
  });
  after(async () => {
    await conn?.stop();
    server?.close();
  });

  it('refuses a JSON answer past the bound by name, an SSE one too, and serves the next call', async () => {
    await assert.rejects(
      conn.request('tools/call', { name: 'big', arguments: { n: 200_000 } }, 5000),
      (e: Error & { rpc?: { code: number; message: string } }) => {
        assert.equal(e.rpc?.code, -32004);
        assert.match(e.rpc?.message ?? '', /server "web".*gateway\.limits\.resultBytes/);
        return true;
      },
    );
    await assert.rejects(conn.request('tools/call', { name: 'big', arguments: { n: 200_000, sse: true } }, 5000), /resultBytes/);
    assert.equal(limits.length, 2);
    const ok = await conn.request('tools/call', { name: 'big', arguments: { n: 1000 } }, 5000);
    assert.equal((ok.content as { text: string }[])[0]?.text.length, 1000);
  });
});
