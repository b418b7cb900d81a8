import assert from 'node:assert/strict';
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fixtureTwoLanes, policyHead, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { legacySession, modernMeta, modernPost, post } from '../helpers/mcp.js';
import { sleep } from '../helpers/procs.js';

/**
 * The limits of lane-limits.test.ts whose checks depend on timing or on the front's peak memory:
 * this file runs after phase 1 (test/run.mjs TIMED). The front's peak RSS while a 100 MiB body streams in;
 * a fifth call 300 ms after four slow ones; a cancel 200 ms after the calls it names.
 */
const POLICY = `${policyHead(`  limits: { streamsPerLane: 3, callsPerLane: 4 }`)}
${fixtureTwoLanes()}`;

/** The front's resident set and its peak so far, from /proc (kB). */
const memOf = (pid: number): { rss: number; hwm: number } => {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  return { rss: Number(/VmRSS:\s+(\d+)/.exec(s)?.[1]), hwm: Number(/VmHWM:\s+(\d+)/.exec(s)?.[1]) };
};

/** POSTs `mib` MiB as a chunked body (no Content-Length), as fast as the socket takes it. */
const chunkedPost = (url: string, token: string, mib: number): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'transfer-encoding': 'chunked',
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', () => undefined); // the front closes the connection once it has answered 413
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let sent = 0;
    const pump = (): void => {
      while (sent < mib) {
        sent += 1;
        if (!req.write(chunk)) {
          req.once('drain', pump);
          return;
        }
      }
      req.end();
    };
    req.write('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"');
    pump();
    setTimeout(() => reject(new Error('no answer to the chunked body')), 30_000).unref();
  });

describe('no lane can hurt the front or another lane: the timed limits', () => {
  let gw: RunningGateway;
  let ta: string;
  let tb: string;
  before(async () => {
    gw = await startGateway(POLICY);
    ta = await gw.token('a');
    tb = await gw.token('b');
  });
  after(async () => gw.stop());

  it('a 100 MiB chunked body is refused with 413 while it streams; the front never holds it', async () => {
    const before = memOf(gw.pid);
    const r = await chunkedPost(gw.url, ta, 100);
    assert.equal(r.status, 413);
    assert.match(r.body, /gateway\.maxBodyBytes/);
    const after = memOf(gw.pid);
    assert.ok(after.hwm - before.hwm < 40 * 1024, `peak RSS grew by ${after.hwm - before.hwm} kB (limit 4 MiB)`);
    const h = await legacySession(gw.url, tb);
    assert.ok(h['mcp-session-id'], 'another lane still opens a session');
  });

  it('concurrent calls per lane are capped (429); the other lane is served meanwhile', async () => {
    const slow = Array.from({ length: 4 }, (_, i) =>
      modernPost(gw.url, ta, 100 + i, 'tools/call', { name: 'fix_sleep', arguments: { ms: 1500 } }),
    );
    await sleep(300);
    const fifth = await modernPost(gw.url, ta, 200, 'tools/call', { name: 'fix_echo', arguments: { text: 'x' } });
    assert.equal(fifth.status, 429);
    assert.match(String((fifth.json?.error as { message?: string } | undefined)?.message), /gateway\.limits\.callsPerLane/);
    const b = await modernPost(gw.url, tb, 1, 'tools/call', { name: 'fix_echo', arguments: { text: 'b' } });
    assert.equal(b.status, 200);
    assert.deepEqual(
      (await Promise.all(slow)).map((r) => r.status),
      [200, 200, 200, 200],
    );
  });

  it('2026-07-28: two in-flight calls of one lane with the same id do not collide; a cancel by that id cancels neither, a unique one cancels its own', async () => {
    const sleepCall = (id: number) => modernPost(gw.url, ta, id, 'tools/call', { name: 'fix_sleep', arguments: { ms: 1200 } });
    const both = [sleepCall(7), sleepCall(7)];
    await sleep(200);
    const cancel = (id: number) =>
      post(
        gw.url,
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, _meta: modernMeta } },
        {
          authorization: `Bearer ${ta}`,
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'notifications/cancelled',
        },
      );
    await cancel(7);
    const texts = (await Promise.all(both)).map((r) => JSON.stringify(r.json?.result ?? r.json?.error));
    assert.ok(
      texts.every((t) => /slept/.test(t)),
      texts.join(' | '),
    );
    const one = sleepCall(8);
    await sleep(200);
    await cancel(8);
    const r = await one;
    assert.doesNotMatch(JSON.stringify(r.json), /slept/, 'the single call with that id was cancelled');
  });
});
