import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { FIXTURE, policyHead, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { cpuSecondsOf, sleep } from '../helpers/procs.js';

/**
 * A refused request's body is not read (attack round 17): the answer goes out with
 * `Connection: close`, and the connection closes after a short linger. Before, Node read and dropped
 * the whole body to keep the connection: a client with no token had the front read 4.2 GB in 8 s,
 * and looping 6.5 MB bodies refused with 413 held the front's CPU. Real gateway, raw sockets.
 */
const POLICY = `${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
  fix: { prefix: fix, domain: public, stdio: { command: node, args: ["${FIXTURE}"] } }
lanes:
  a: { servers: [fix] }
`;

/** Sends a POST's head, then body bytes as fast as the socket takes them (at most `limit`), until it closes or `ms` pass. */
const flood = (port: number, head: string, ms: number, limit = Number.POSITIVE_INFINITY) =>
  new Promise<{ status: number; closed: boolean; closedAfterMs: number; sent: number; answer: string }>((resolve) => {
    const s: Socket = connect(port, '127.0.0.1');
    const chunk = Buffer.alloc(1024 * 1024, 'x');
    let answer = '';
    let sent = 0;
    let answeredAt = 0;
    const t0 = Date.now();
    let done = false;
    const finish = (closed: boolean): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      s.destroy();
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
      resolve({ status, closed, closedAfterMs: answeredAt ? Date.now() - answeredAt : -1, sent, answer });
    };
    const timer = setTimeout(() => finish(false), ms);
    s.on('data', (c: Buffer) => {
      if (!answeredAt) answeredAt = Date.now();
      answer += c.toString('latin1');
    });
    // A write after the front closed fails (EPIPE): the answer may still be unread, so only the close ends it.
    s.on('close', () => finish(true));
    s.on('error', () => undefined);
    const pump = (): void => {
      while (!done && Date.now() - t0 < ms && sent < limit) {
        const piece = chunk.subarray(0, Math.min(chunk.length, limit - sent));
        sent += piece.length;
        if (!s.write(piece)) {
          s.once('drain', pump);
          return;
        }
      }
    };
    s.write(head, pump);
  });

describe('a refused request’s body is not read', () => {
  let gw: RunningGateway;
  let port = 0;
  let token = '';
  before(async () => {
    gw = await startGateway(POLICY);
    port = Number(new URL(gw.url).port);
    token = await gw.token('a');
  });
  after(async () => gw?.stop());

  it('no token and a 10 GB body: 401 at once, the connection closed within the linger, and the front reads at most its linger of it', async () => {
    const cpu0 = cpuSecondsOf(gw.pid);
    const head = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 10000000000\r\n\r\n`;
    const r = await flood(port, head, 8000);
    const cpu = cpuSecondsOf(gw.pid) - cpu0;
    assert.equal(r.status, 401, r.answer.slice(0, 200));
    assert.match(r.answer, /connection: close/i);
    assert.ok(r.closed && r.closedAfterMs >= 0 && r.closedAfterMs < 3000, `closed ${r.closedAfterMs} ms after the answer`);
    // What the client got into its socket before the close is the kernel's buffers, not the front's reads.
    assert.ok(r.sent < 64 * 1024 * 1024, `${(r.sent / 1e6).toFixed(0)} MB sent before the close`);
    assert.ok(cpu < 1, `the front used ${cpu.toFixed(2)} CPU-s`);
  });

  it('a lane looping 6.5 MB bodies refused with 413: its first reads the 413, every connection closes, and the front reads at most its budget', async (t) => {
    const head = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 6500000\r\n\r\n`;
    // As a client sends it: the body it declared, no more. The budget is full: the answer is read.
    await sleep(1500);
    const first = await flood(port, head, 3000, 6_500_000);
    assert.equal(first.status, 413, first.answer.slice(0, 200));
    assert.match(first.answer, /gateway\.maxBodyBytes/);
    const cpu0 = cpuSecondsOf(gw.pid);
    const t0 = Date.now();
    const statuses: number[] = [];
    for (let i = 0; i < 15; i += 1) {
      const r = await flood(port, head, 3000, 6_500_000);
      statuses.push(r.status);
      assert.ok(r.closed, `not closed within 3 s; ${r.sent} sent`);
    }
    const cpu = cpuSecondsOf(gw.pid) - cpu0;
    const seconds = (Date.now() - t0) / 1000;
    const read = statuses.filter((s) => s === 413).length;
    t.diagnostic(`15 refusals in ${seconds.toFixed(1)} s, ${read} read their 413; the front used ${cpu.toFixed(2)} CPU-s`);
    // Past the budget a refusal closes at once: the client may see the reset instead of the 413.
    assert.ok(
      statuses.every((s) => s === 413 || s === 0),
      statuses.join(','),
    );
    // Read and dropped whole, each 6.5 MB body cost the front ~13 ms, back to back most of a core
    // (attack round 17). The budget lets it read 8 MiB a second of refused bodies, ~2 % of a core.
    assert.ok(cpu / seconds < 0.15, `the front used ${cpu.toFixed(2)} CPU-s in ${seconds.toFixed(1)} s`);
  });
});
