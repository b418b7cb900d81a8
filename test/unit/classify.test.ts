import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyInboundRequest } from '@modelcontextprotocol/server';
import { classifyInbound } from '../../src/front/transport/classify.js';

/**
 * The front's own era classifier against the SDK's, as an oracle, over inputs built from the
 * pieces that decide the outcome (shape, id, params, envelope, headers). Outcomes must agree on
 * everything the front acts on: the kind, the legacy reason, the modern message kind and
 * revision, and a rejection's HTTP status and JSON-RPC code.
 */
const V = 'io.modelcontextprotocol/protocolVersion';
const C = 'io.modelcontextprotocol/clientCapabilities';
const I = 'io.modelcontextprotocol/clientInfo';
const L = 'io.modelcontextprotocol/logLevel';

const metas: unknown[] = [
  undefined,
  null,
  [],
  {},
  { progressToken: 3 },
  { progressToken: 1.5 },
  { progressToken: 'p' },
  { progressToken: null },
  { 'io.modelcontextprotocol/related-task': { taskId: 't' } },
  { 'io.modelcontextprotocol/related-task': { taskId: 3 } },
  { [V]: '2026-07-28', [C]: {} },
  { [V]: '2026-07-28' },
  { [C]: {} },
  { [V]: 7, [C]: {} },
  { [V]: '2025-06-18', [C]: {} },
  { [V]: '2099-01-01', [C]: {} },
  { [V]: '2026-07-28', [C]: [] },
  { [V]: '2026-07-28', [C]: { roots: { listChanged: true }, sampling: {}, elicitation: { form: { applyDefaults: true } } } },
  { [V]: '2026-07-28', [C]: { roots: { listChanged: 'yes' } } },
  { [V]: '2026-07-28', [C]: { elicitation: { form: { applyDefaults: 1 } } } },
  { [V]: '2026-07-28', [C]: { elicitation: { url: [] } } },
  { [V]: '2026-07-28', [C]: { experimental: { a: {} } } },
  { [V]: '2026-07-28', [C]: { experimental: { a: 1 } } },
  { [V]: '2026-07-28', [C]: { extensions: { 'x/y': { v: 1 } } } },
  { [V]: '2026-07-28', [C]: { extensions: { 'x/y': [] } } },
  { [V]: '2026-07-28', [C]: { sampling: { tools: 1 } } },
  { [V]: '2026-07-28', [C]: { unknownCap: 5 } },
  { [V]: '2026-07-28', [C]: {}, [I]: { name: 'c', version: '1' } },
  { [V]: '2026-07-28', [C]: {}, [I]: { name: 'c' } },
  { [V]: '2026-07-28', [C]: {}, [I]: { name: 'c', version: '1', icons: [{ src: 'a', theme: 'dark' }] } },
  { [V]: '2026-07-28', [C]: {}, [I]: { name: 'c', version: '1', icons: [{ src: 'a', theme: 'blue' }] } },
  { [V]: '2026-07-28', [C]: {}, [I]: { name: 'c', version: '1', icons: [{ src: 'a', sizes: [1] }] } },
  { [V]: '2026-07-28', [C]: {}, [L]: 'debug' },
  { [V]: '2026-07-28', [C]: {}, [L]: 'loud' },
  { [V]: '2026-07-28', [C]: {}, progressToken: 2.5 },
  { [V]: '2026-07-28', [C]: {}, 'io.modelcontextprotocol/other': 1 },
];
const methods = ['tools/call', 'initialize', 'ping', 'notifications/cancelled', 'server/discover'];
const ids: unknown[] = [1, 'a', 1.5, null, undefined, {}];
const versionHeaders = [undefined, '2025-06-18', ' 2026-07-28\t', '2026-07-28', '2099-01-01', 'junk'];
const methodHeaders = [undefined, 'tools/call', ' ping ', 'other'];

/** A deterministic generator (mulberry32), so a failure names an input that reproduces. */
const rng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const pick = <T>(r: () => number, xs: T[]): T => xs[Math.floor(r() * xs.length)] as T;

const body = (r: () => number): unknown => {
  const shape = r();
  const meta = pick(r, metas);
  const params: unknown =
    r() < 0.08
      ? pick(r, [null, [], 'x'])
      : meta === undefined && r() < 0.3
        ? undefined
        : { name: 'n', ...(meta === undefined ? {} : { _meta: meta }) };
  const m: Record<string, unknown> = { jsonrpc: r() < 0.95 ? '2.0' : '1.0', method: pick(r, methods) };
  const id = pick(r, ids);
  if (shape < 0.55 && id !== undefined) m.id = id;
  if (params !== undefined) m.params = params;
  if (shape >= 0.55 && shape < 0.65)
    return r() < 0.5
      ? { jsonrpc: '2.0', id: pick(r, ids), result: r() < 0.8 ? {} : 'x' }
      : { jsonrpc: '2.0', id: pick(r, ids), error: { code: r() < 0.8 ? -1 : 1.5, message: 'm' } };
  if (shape >= 0.65 && shape < 0.7) return r() < 0.2 ? [] : [m, ...(r() < 0.5 ? [{ jsonrpc: '2.0', id: 2, method: 'ping' }] : [])];
  if (shape >= 0.7 && shape < 0.73) return pick(r, [null, 'text', 3, {}]);
  if (r() < 0.04) m.extra = true;
  return m;
};

const summary = (o: Record<string, unknown>): string =>
  JSON.stringify({
    kind: o.kind,
    reason: o.kind === 'legacy' ? o.reason : undefined,
    messageKind: o.messageKind,
    revision: o.kind === 'modern' ? ((o.classification as { revision?: string } | undefined)?.revision ?? o.revision) : undefined,
    status: o.httpStatus,
    code: o.code,
  });

describe('the front classifier agrees with the SDK classifier', () => {
  it('on 20,000 generated requests, covering every outcome', () => {
    const r = rng(20261201);
    const seen = new Set<string>();
    for (let n = 0; n < 20_000; n += 1) {
      const input = { body: body(r), protocolVersionHeader: pick(r, versionHeaders), mcpMethodHeader: pick(r, methodHeaders) };
      const ours = summary(classifyInbound(input) as unknown as Record<string, unknown>);
      const sdk = summary(classifyInboundRequest({ httpMethod: 'POST', ...input }) as unknown as Record<string, unknown>);
      assert.equal(ours, sdk, `input ${n}: ${JSON.stringify(input)}`);
      seen.add(ours);
    }
    const kinds = [...seen].map((s) => JSON.parse(s) as { kind: string; reason?: string; messageKind?: string; code?: number });
    for (const reason of ['initialize', 'no-claim', 'notification', 'response', 'batch'])
      assert.ok(
        kinds.some((k) => k.reason === reason),
        `no generated input was legacy/${reason}`,
      );
    for (const mk of ['request', 'notification'])
      assert.ok(
        kinds.some((k) => k.messageKind === mk),
        `no modern ${mk}`,
      );
    for (const code of [-32600, -32602, -32020])
      assert.ok(
        kinds.some((k) => k.code === code),
        `no rejection with ${code}`,
      );
  });

  it('keeps the message and its claimed revision for a modern request', () => {
    const msg = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a', _meta: { [V]: '2026-07-28', [C]: {} } } };
    const out = classifyInbound({ body: msg, protocolVersionHeader: '2026-07-28', mcpMethodHeader: 'tools/call' });
    assert.equal(out.kind, 'modern');
    assert.equal(out.kind === 'modern' && out.message, msg);
    assert.equal(out.kind === 'modern' && out.revision, '2026-07-28');
  });

  it('names the envelope key at fault', () => {
    const out = classifyInbound({
      body: { jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { [V]: '2026-07-28', [C]: {}, [L]: 'loud' } } },
    });
    assert.equal(out.kind, 'reject');
    assert.match(out.kind === 'reject' ? out.message : '', /logLevel/);
  });
});
