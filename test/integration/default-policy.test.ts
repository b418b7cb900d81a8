import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { modernPost, textOf } from '../helpers/mcp.js';

/**
 * The embedded default policy as `npm start` serves it (its paths pointed at this checkout and
 * its state at a temp dir): what a first-time user tries first must work.
 */
describe('the default policy, used as a new user would', () => {
  let gw: RunningGateway;
  before(async () => {
    const text = readFileSync(path.join(ROOT, 'policies/default.yaml'), 'utf8')
      .replaceAll('{policyDir}/../node_modules', path.join(ROOT, 'node_modules'))
      .replaceAll('{policyDir}/../dist', path.join(ROOT, 'dist'))
      .replace('"{policyDir}/../.lanegate"', './state')
      .replace(/^\$schema:.*$/m, '');
    gw = await startGateway(text, { secrets: { 'state/secrets/mailbox-alice-inbox.token': 'demo-token' } });
  });
  after(async () => gw.stop());

  it("lane research writes to its memory server and reads it back (the server's file lives in the state dir)", async () => {
    const t = await gw.token('research');
    const created = await modernPost(gw.url, t, 1, 'tools/call', {
      name: 'memory_create_entities',
      arguments: { entities: [{ name: 'first-user', entityType: 'test', observations: ['it works'] }] },
    });
    assert.equal((created.json?.result as { isError?: boolean } | undefined)?.isError ?? false, false, JSON.stringify(created.json));
    const graph = await modernPost(gw.url, t, 2, 'tools/call', { name: 'memory_read_graph', arguments: {} });
    assert.match(textOf(graph.json?.result), /first-user/);
    const echo = await modernPost(gw.url, t, 3, 'tools/call', { name: 'every_echo', arguments: { message: 'hello' } });
    assert.match(textOf(echo.json?.result), /Echo: hello/);
  });

  it('a progress token too long to repeat back is refused up front (the attack: 1 MiB token x 500 progress steps)', async () => {
    const t = await gw.token('research');
    const long = await modernPost(gw.url, t, 4, 'tools/call', {
      name: 'every_echo',
      arguments: { message: 'x' },
      _meta: { progressToken: 'p'.repeat(1024 * 1024) },
    });
    assert.equal(long.status, 400, JSON.stringify(long.json).slice(0, 300));
    assert.equal((long.json?.error as { code?: number } | undefined)?.code, -32602);
    assert.match(JSON.stringify(long.json), /progressToken must be a number or a string of at most 256 characters/);
    const fine = await modernPost(gw.url, t, 5, 'tools/call', {
      name: 'every_echo',
      arguments: { message: 'y' },
      _meta: { progressToken: 'p-1' },
    });
    assert.match(textOf(fine.json?.result), /Echo: y/);
  });
});
