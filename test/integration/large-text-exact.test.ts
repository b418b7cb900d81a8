import assert from 'node:assert/strict';
import { Agent } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { EVERYTHING, FIXTURE, policyHead, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { modernCall, sendBytes } from '../helpers/http.js';

/**
 * A large answer crosses the link as 256 KiB slices and reaches the lane as those slices' own
 * strings, never joined, in corked writes (issue 19): a character of two UTF-16 units, or of
 * four UTF-8 bytes, or an escape, cut at any seam must still arrive whole, and the declared
 * Content-Length must be the bytes sent. Real gateway, host, fixture and server-everything.
 */
const POLICY = `${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
  fix: { prefix: fix, domain: public, stdio: { command: node, args: ["${FIXTURE}"] } }
  every: { prefix: every, domain: public, stdio: { command: node, args: ["${EVERYTHING}", "stdio"] } }
lanes:
  a: { servers: [fix, every] }
`;

/** ~2.4 MB of text (3.4 MB as JSON, under the 4 MiB body bound) whose every unit width and escape lands on some slice seam: pairs, CJK, accents, quotes, controls. */
const TEXT = Array.from({ length: 140_000 }, (_, i) => `a😀界é"\\\n${String.fromCharCode(1 + (i % 30))}${'z'.repeat(i % 7)}`).join('');

describe('a large answer of every kind of character arrives exactly', () => {
  let gw: RunningGateway;
  let token: string;
  const agent = new Agent({ keepAlive: true });
  before(async () => {
    gw = await startGateway(POLICY);
    token = await gw.token('a');
  });
  after(async () => {
    agent.destroy();
    await gw?.stop();
  });

  it('2026-07-28: the fixture echoes ~2.4 MB; the text is the text sent and Content-Length is the bytes', async () => {
    assert.ok(Buffer.byteLength(TEXT) > 2_000_000, 'many slices of the link');
    const c = modernCall(token, 7, 'fix_echo', { text: TEXT });
    const r = await sendBytes(new URL(gw.url), c.body, c.headers, agent);
    assert.equal(r.status, 200);
    assert.equal(Number(r.headers['content-length']), r.bytes.length, 'Content-Length is what was sent');
    const text = r.bytes.toString('utf8');
    assert.ok(!text.includes('\ufffd'), 'no character was cut into replacement characters');
    const body = JSON.parse(text) as { id: number; result: { resultType: string; content: { text: string }[] } };
    assert.equal(body.id, 7);
    assert.equal(body.result.resultType, 'complete');
    assert.ok(body.result.content[0]?.text === TEXT, 'the echo is the text sent, exactly');
  });

  it('the handshake era, an SDK v1 client: server-everything echoes the same text exactly', async () => {
    const client = new V1Client({ name: 'exact', version: '1.0.0' });
    await client.connect(new V1Transport(new URL(gw.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    try {
      const r = (await client.callTool({ name: 'every_echo', arguments: { message: TEXT } })) as { content: { text: string }[] };
      assert.ok(r.content[0]?.text === `Echo: ${TEXT}`, 'the echo is the text sent, exactly');
    } finally {
      await client.close();
    }
  });

  it('a large body is judged as a small one: a long value that is not JSON is a 400, bytes that are not UTF-8 read as before', async () => {
    // Opened on its bytes (large-body.ts), a long value is checked a window at a time: what
    // JSON.parse refuses whole must still be refused, and nothing of it reach the fixture.
    const c = modernCall(token, 9, 'fix_echo', { text: 'MARK'.repeat(250_000) });
    const bad: [string, string][] = [
      ['a raw control character', 'MARK\u0001MARK'],
      ['an unknown escape', 'MARK\\qMARK'],
      ['a cut \\u escape', 'MARK\\u12MARK'],
    ];
    for (const [label, raw] of bad) {
      const r = await sendBytes(new URL(gw.url), c.body.replace('MARKMARK', raw), c.headers, agent);
      const text = r.bytes.toString('utf8');
      assert.equal(r.status, 400, `${label}: ${text.slice(0, 200)}`);
      assert.match(text, /Parse error/, label);
    }
    // A byte that is not UTF-8 in a long value: decoded as the whole body always was (U+FFFD).
    const at = c.body.indexOf('MARKMARK');
    const [head, tail] = [c.body.slice(0, at), c.body.slice(at + 8)];
    const body = Buffer.concat([Buffer.from(`${head}MARK`), Buffer.from([0xff]), Buffer.from(`MARK${tail}`)]);
    const r = await sendBytes(new URL(gw.url), body, c.headers, agent);
    assert.equal(r.status, 200, r.bytes.toString('utf8').slice(0, 300));
    const echoed = (JSON.parse(r.bytes.toString('utf8')) as { result: { content: { text: string }[] } }).result.content[0]?.text;
    assert.ok(echoed === `MARK\ufffdMARK${'MARK'.repeat(249_998)}`, 'the echo is the body as decoded whole');
  });
});
