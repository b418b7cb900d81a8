import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FIXTURE, policyHead } from '../helpers/gateway.js';
import { type InProcessGateway, startInProcess } from '../helpers/in-process.js';
import { modernPost, textOf } from '../helpers/mcp.js';

/**
 * The gateway in one process: front and hosts over the memory link, the front's real HTTP
 * server, real upstream processes. What the black-box tests check with processes, here cheaply.
 */
describe('the gateway in process (front + hosts over the memory link)', () => {
  let g: InProcessGateway;
  before(async () => {
    g = await startInProcess(`${policyHead()}
trustDomains: { public: { kind: shared }, mine: { kind: principal } }
servers:
  fix: { prefix: fix, domain: public, stdio: { command: node, args: ["${FIXTURE}"] } }
  own: { prefix: own, domain: mine, stdio: { command: node, args: ["${FIXTURE}"] } }
  bad: { prefix: bad, domain: public, stdio: { command: node, args: ["${FIXTURE}", "--poison"] } }
lanes:
  one: { servers: [fix, own, bad] }
  two: { servers: [fix] }
`);
  });
  after(async () => g.stop());

  it('serves each lane its loadout over HTTP, calls reach the real upstream, the poisoned server is withheld', async () => {
    const one = await g.token('one');
    const list = await modernPost(g.url, one, 1, 'tools/list');
    const names = ((list.json?.result as { tools?: { name: string }[] } | undefined)?.tools ?? []).map((t) => t.name);
    assert.ok(names.includes('fix_echo') && names.includes('own_echo'), names.join());
    assert.ok(!names.some((n) => n.startsWith('bad_')), 'the guard withheld bad');
    const r = await modernPost(g.url, one, 2, 'tools/call', { name: 'own_echo', arguments: { text: 'in process' } });
    assert.match(textOf(r.json?.result), /in process/);
  });

  it('a lane never reaches what is not in its loadout (403), and a bad token is refused (401)', async () => {
    const two = await g.token('two');
    const r = await modernPost(g.url, two, 3, 'tools/call', { name: 'own_echo', arguments: { text: 'x' } });
    assert.equal(r.status, 403);
    const bad = await modernPost(g.url, `${two.slice(0, -4)}AAAA`, 4, 'tools/list');
    assert.equal(bad.status, 401);
  });

  it('runs one host per shared domain and one per (per-lane domain, lane), as the process gateway does', () => {
    assert.deepEqual(g.gw.hosts.running().sort(), ['mine@one', 'public']);
  });
});
