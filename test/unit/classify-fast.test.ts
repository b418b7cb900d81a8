import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyInboundRequest } from '@modelcontextprotocol/server';
import { plainSessionRequest } from '../../src/front/transport/mcp-http.js';

const call = (extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name: 'x', arguments: {}, ...extra },
});

describe('the legacy fast path agrees with the SDK classifier wherever it answers', () => {
  const cases: [string, unknown, string | undefined, string | undefined][] = [
    ['plain call in a session', call(), 'sid', '2025-06-18'],
    ['no version header', call(), 'sid', undefined],
    ['progress token', call({ _meta: { progressToken: 3 } }), 'sid', '2025-03-26'],
    ['string id', { jsonrpc: '2.0', id: 'a', method: 'ping' }, 'sid', '2025-11-25'],
  ];
  for (const [label, body, sid, version] of cases)
    it(`takes: ${label}`, () => {
      assert.equal(plainSessionRequest(body, sid, version), true);
      const sdk = classifyInboundRequest({ httpMethod: 'POST', body, protocolVersionHeader: version });
      assert.equal(sdk.kind, 'legacy');
    });

  const refused: [string, unknown, string | undefined, string | undefined][] = [
    ['no session', call(), undefined, '2025-06-18'],
    ['modern version header', call(), 'sid', '2026-07-28'],
    ['unknown version header', call(), 'sid', '2099-01-01'],
    ['an envelope claim', call({ _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } }), 'sid', undefined],
    ['initialize', { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }, 'sid', undefined],
    ['a notification', { jsonrpc: '2.0', method: 'notifications/cancelled', params: {} }, 'sid', undefined],
    ['a batch', [call()], 'sid', undefined],
    ['a fractional id', { ...call(), id: 1.5 }, 'sid', undefined],
    ['wrong jsonrpc', { ...call(), jsonrpc: '1.0' }, 'sid', undefined],
    ['array params', { jsonrpc: '2.0', id: 1, method: 'x', params: [] }, 'sid', undefined],
  ];
  for (const [label, body, sid, version] of refused)
    it(`leaves to the classifier: ${label}`, () => assert.equal(plainSessionRequest(body, sid, version), false));
});
