import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { EVERYTHING, policyHead, type RunningGateway, startGateway } from '../helpers/gateway.js';

const POLICY = `${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
  everything: { prefix: every, domain: public, stdio: { command: node, args: ["${EVERYTHING}", "stdio"] } }
lanes:
  a: { servers: [everything] }
`;

const text = (r: unknown): string => ((r as { content?: { text?: string }[] }).content ?? []).map((c) => c.text ?? '').join('');

describe('real clients through lanegate', () => {
  let gw: RunningGateway;
  let token: string;
  before(async () => {
    gw = await startGateway(POLICY);
    token = await gw.token('a');
  });
  after(async () => gw.stop());

  it('the v1 SDK client (handshake era only) lists and calls tools with a bearer header', async () => {
    const c = new V1Client({ name: 'v1', version: '1.0.0' });
    await c.connect(new V1Transport(new URL(gw.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    try {
      assert.ok((await c.listTools()).tools.some((t) => t.name === 'every_echo'));
      assert.match(text(await c.callTool({ name: 'every_echo', arguments: { message: 'v1 client' } })), /v1 client/);
      assert.equal(text(await c.callTool({ name: 'every_get-sum', arguments: { a: 2, b: 40 } })).includes('42'), true);
    } finally {
      await c.close();
    }
  });

  it('the v2 SDK client in auto mode negotiates 2026-07-28 and calls tools', async () => {
    const c = new Client({ name: 'v2', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await c.connect(new StreamableHTTPClientTransport(new URL(gw.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    try {
      assert.equal(c.getNegotiatedProtocolVersion(), '2026-07-28');
      assert.equal(c.getProtocolEra(), 'modern');
      assert.match(text(await c.callTool({ name: 'every_echo', arguments: { message: 'auto mode' } })), /auto mode/);
    } finally {
      await c.close();
    }
  });
});
