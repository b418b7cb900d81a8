import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { readBody } from '../../src/front/transport/body.js';
import { Exchange, whenClosed } from '../../src/front/transport/exchange.js';
import { streamSse } from '../../src/front/transport/sse-stream.js';

/** Resolves after `ms`, or rejects: a step that should end must end within its deadline. */
const within = <T>(p: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: still waiting after ${ms} ms`)), ms))]);

/**
 * The lane endpoint's HTTP layer on real loopback sockets, when clients leave early: a handler
 * that waited (a token check, a call) must find the client gone and let go of everything.
 */
describe('the HTTP exchange when the client has gone', () => {
  let server: Server;
  let port = 0;
  let handle: (req: IncomingMessage, res: ServerResponse) => void = () => undefined;
  before(async () => {
    server = createServer((req, res) => handle(req, res));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  /** Sends a request, waits until the server holds it, and drops the connection. */
  const sendAndLeave = async (method: string, headers: Record<string, string>, body = ''): Promise<[IncomingMessage, ServerResponse]> => {
    const held = new Promise<[IncomingMessage, ServerResponse]>((resolve) => {
      handle = (req, res) => resolve([req, res]);
    });
    const c = request({ host: '127.0.0.1', port, method, path: '/mcp', headers });
    c.on('error', () => undefined);
    c.write(body);
    const [req, res] = await held;
    c.destroy();
    await new Promise<void>((r) => whenClosed(res, r));
    return [req, res];
  };

  it('an SSE answer begun after the client left ends at once: writes return, onAbort runs, the response ends', async () => {
    const [req, res] = await sendAndLeave('POST', { 'content-type': 'application/json' }, '{}');
    let aborted = false;
    const ran = new Promise<boolean>((resolve) => {
      streamSse(new Exchange(req, res), async (s) => {
        s.onAbort(() => {
          aborted = true;
        });
        await s.writeSSE({ event: 'message', data: '{"jsonrpc":"2.0","method":"notifications/progress"}' });
        await s.write(': keep-alive\n\n');
        resolve(s.aborted);
      });
    });
    assert.equal(await within(ran, 2000, 'the stream on a gone client'), true);
    assert.ok(aborted, 'onAbort ran for a client already gone');
    await within(new Promise<void>((r) => setImmediate(r)), 100, 'tick');
    assert.ok(res.writableEnded || res.destroyed);
  });

  it('close handlers attached after the close still run, and a body read on a gone client returns', async () => {
    const [req, res] = await sendAndLeave('POST', { 'content-type': 'application/json', 'content-length': '1000' }, '{"partial":');
    let ran = false;
    whenClosed(res, () => {
      ran = true;
    });
    assert.ok(ran, 'whenClosed runs at once on a closed response');
    const body = await within(readBody(req, 1024), 2000, 'a body read on a gone client');
    assert.equal(body.ok, false);
  });

  it('many close handlers on one response share one listener, each runs once, in order, even past one that throws', async () => {
    const held = new Promise<[IncomingMessage, ServerResponse]>((resolve) => {
      handle = (req, res) => resolve([req, res]);
    });
    const c = request({ host: '127.0.0.1', port, method: 'POST', path: '/mcp', headers: { 'content-type': 'application/json' } });
    c.on('error', () => undefined);
    c.end('{}');
    const [, res] = await held;
    const warnings: string[] = [];
    const onWarning = (w: Error): void => {
      if (w.name === 'MaxListenersExceededWarning') warnings.push(w.message);
    };
    process.on('warning', onWarning);
    const before = res.listenerCount('close');
    const ran: number[] = [];
    for (let i = 0; i < 25; i += 1)
      whenClosed(res, () => {
        ran.push(i);
        if (i === 3) throw new Error('one handler fails');
      });
    assert.equal(res.listenerCount('close'), before + 1, '25 handlers, one listener');
    // The response's own close, emitted here so the failing handler's error comes back to this call.
    assert.throws(() => res.emit('close'), /one handler fails/);
    assert.deepEqual(
      ran,
      Array.from({ length: 25 }, (_, i) => i),
    );
    assert.equal(res.listenerCount('close'), before, 'the one listener is gone after it ran');
    const closed = new Promise<void>((r) => res.once('close', () => r()));
    res.end('{}');
    await within(closed, 2000, 'the real close');
    let late = false;
    whenClosed(res, () => {
      late = true;
    });
    assert.ok(late, 'asked after the close: runs at once');
    await new Promise<void>((r) => setImmediate(r));
    process.off('warning', onWarning);
    assert.deepEqual(warnings, [], 'no MaxListenersExceededWarning');
    c.destroy();
  });
});
