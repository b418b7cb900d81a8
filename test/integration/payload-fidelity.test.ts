import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connectClient, legacySession, modernPost, post, textOf } from '../helpers/mcp.js';
import { EVERYTHING, policyHead, type RunningGateway, startGateway } from '../helpers/gateway.js';

/**
 * Calls cross the front without a second parse or serialisation: the lane's params go to the host
 * as the text that arrived, and the result comes back as the host's text. Whatever the bytes,
 * what the upstream receives and what the lane reads must be exactly what was sent, in both eras,
 * on prefixed and bare lanes, and with a progress token (which the front rewrites).
 */
const tricky = (n: number): string => {
  const piece = 'é ü 日本 🙂 "quoted" \\back\\slash\\ \n\t {"isError":true} "resultType":"input_required" </script> \u2028 ';
  return piece.repeat(Math.ceil(n / piece.length)).slice(0, n);
};

describe('payload fidelity through the front', () => {
  let gw: RunningGateway;
  before(async () => {
    gw = await startGateway(`${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
  every: { prefix: every, domain: public, stdio: { command: node, args: ["${EVERYTHING}", "stdio"] } }
lanes:
  research: { servers: [every] }
  solo: { servers: [every], naming: bare }
`);
  });
  after(async () => gw.stop());

  it('a 1 MiB argument and its echo arrive byte-exact: legacy session, SDK client', async () => {
    const message = tricky(1024 * 1024);
    const client = await connectClient(gw.url, await gw.token('research'), 'legacy');
    try {
      const r = await client.callTool({ name: 'every_echo', arguments: { message } });
      assert.equal(textOf(r), `Echo: ${message}`);
      assert.notEqual(r.isError, true, 'an "isError":true inside a text is not an error');
    } finally {
      await client.close();
    }
  });

  it('the same in the 2026-07-28 era, and on a bare lane', async () => {
    const message = tricky(300 * 1024);
    const modern = await modernPost(gw.url, await gw.token('research'), 5, 'tools/call', { name: 'every_echo', arguments: { message } });
    assert.equal(modern.status, 200);
    assert.equal(textOf((modern.json as { result: unknown }).result), `Echo: ${message}`);
    const headers = await legacySession(gw.url, await gw.token('solo'));
    const bare = await post(
      gw.url,
      { jsonrpc: '2.0', id: 'x"1', method: 'tools/call', params: { name: 'echo', arguments: { message } } },
      headers,
    );
    assert.equal(bare.status, 200);
    assert.equal(bare.json?.id, 'x"1', "the lane's own id comes back, whatever its characters");
    assert.equal(textOf((bare.json as { result: unknown }).result), `Echo: ${message}`);
  });

  it('a call with a progress token and one whose arguments are invalid still answer as before', async () => {
    const headers = await legacySession(gw.url, await gw.token('research'));
    const withToken = await post(
      gw.url,
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'every_echo', arguments: { message: 'tok' }, _meta: { progressToken: 'p1' } },
      },
      headers,
    );
    assert.equal(withToken.status, 200);
    assert.equal(textOf((withToken.json as { result: unknown }).result), 'Echo: tok');
    const wrong = await post(
      gw.url,
      { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'every_echo', arguments: { message: 3 } } },
      headers,
    );
    assert.equal(wrong.status, 200);
    const res = wrong.json as { result?: { isError?: boolean }; error?: unknown };
    assert.ok(res.error !== undefined || res.result?.isError === true, 'a bad argument is refused, not echoed');
  });
});
