import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
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

// The MCP Inspector's CLI (the package the Inspector's `--cli` mode runs). It reads its own
// package.json relative to the working directory, so it runs from its build directory.
const INSPECTOR = path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/build/index.js'));
const inspector = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    execFile(process.execPath, ['index.js', ...args], { cwd: INSPECTOR, timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) || 1 : 0, stdout, stderr });
    });
  });

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

  it('the MCP Inspector CLI lists and calls tools with a bearer header, and is refused without a valid one', async () => {
    const base = [gw.url, '--transport', 'http'];
    const list = await inspector([...base, '--header', `Authorization: Bearer ${token}`, '--method', 'tools/list']);
    assert.equal(list.code, 0, list.stderr);
    const tools = (JSON.parse(list.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name);
    assert.ok(tools.includes('every_echo') && tools.includes('lanegate_status'), tools.join(', '));
    const call = await inspector([
      ...base,
      '--header',
      `Authorization: Bearer ${token}`,
      '--method',
      'tools/call',
      '--tool-name',
      'every_echo',
      '--tool-arg',
      'message=from the inspector',
    ]);
    assert.equal(call.code, 0, call.stderr);
    assert.match(text(JSON.parse(call.stdout)), /from the inspector/);
    const refused = await inspector([...base, '--header', 'Authorization: Bearer not-a-token', '--method', 'tools/list']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /Unauthorized/);
    assert.ok(!refused.stdout.includes('every_echo'));
  });
});
