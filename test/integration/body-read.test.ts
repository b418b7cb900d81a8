import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type BodyRead, readBody } from '../../src/front/transport/body.js';

/**
 * Request bodies read on a real loopback socket, in as many chunks as the client's odd-sized
 * writes make: a body is kept as its reads (small ones gathered into blocks: body-chunks.ts), and
 * what it reads must be the text sent, byte for byte, with multi-byte characters cut between chunks.
 */
describe('request bodies, read as they arrive', () => {
  let server: Server;
  let port = 0;
  let max = 4 * 1024 * 1024;
  let got: Promise<BodyRead> | undefined;
  /** Reads the server made of the last body (data events). */
  let reads = 0;
  before(async () => {
    server = createServer((req: IncomingMessage, res) => {
      reads = 0;
      req.on('data', () => {
        reads += 1;
      });
      got = readBody(req, max);
      void got.then((b) => res.writeHead(b.ok ? 200 : 413).end());
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  /** Posts `body` in pieces of `piece` bytes (cutting characters apart), with or without a Content-Length. */
  const post = (body: Buffer, piece: number, declared: boolean): Promise<number> =>
    new Promise((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, method: 'POST', path: '/', headers: declared ? { 'content-length': String(body.length) } : {} },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      const write = (at: number): void => {
        if (at >= body.length) {
          req.end();
          return;
        }
        req.write(body.subarray(at, at + piece));
        setImmediate(() => write(at + piece));
      };
      write(0);
    });

  const text = `{"t":"${'aé界😀'.repeat(60_000)}"}`;
  const bytes = Buffer.from(text);

  for (const declared of [true, false])
    it(`a ${(bytes.length / 1e6).toFixed(1)} MB body of multi-byte text in 7,777-byte writes reads exactly (${declared ? 'Content-Length' : 'chunked'})`, async () => {
      max = 4 * 1024 * 1024;
      assert.equal(await post(bytes, 7777, declared), 200);
      const b = await got;
      assert.ok(b?.ok);
      assert.equal(b.ok && b.length, Buffer.byteLength(text));
      assert.ok(b.ok && b.bytes().toString('utf8') === text, 'the text read is the text sent');
    });

  it('a body trickled in tiny reads is kept in a few blocks, not a Buffer per read, and reads exactly', async () => {
    max = 4 * 1024 * 1024;
    const small = bytes.subarray(0, 150_000);
    assert.equal(await post(small, 23, true), 200);
    const b = await got;
    assert.ok(b?.ok);
    assert.ok(reads > 1000, `${reads} reads: the server saw the body in small pieces`);
    // The first read as it is, the rest in 64 KiB blocks (a block ends a read short of full at most).
    assert.ok(b.ok && b.chunks.length <= Math.ceil(small.length / (64 * 1024)) + 2, `${b.ok && b.chunks.length} chunks kept`);
    assert.ok(b.ok && b.bytes().equals(small), 'the bytes read are the bytes sent');
  });

  it('a body over the bound is refused and nothing more of it read or kept', async () => {
    max = 256 * 1024;
    assert.equal(await post(bytes, 65_536, true), 413);
    assert.deepEqual(await got, { ok: false, tooLarge: true });
  });
});
