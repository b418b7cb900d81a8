import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { modernPost, textOf } from '../helpers/mcp.js';
import { FIXTURE, policyHead, type RunningGateway, startGateway } from '../helpers/gateway.js';
// @ts-expect-error: a plain .mjs module shared with the fixture server (no types)
import { manyValues } from '../fixtures/servers/many-values.mjs';

/**
 * Issue 19 (attack round 39): a request and an answer of many small values cross the front, the
 * link and the host in steps (the paced parse of many values, the secret scan's walk a few
 * thousand members a visit, the paced serialisation of a large message). What must not change is
 * the value: every member, in its order, with its escapes, its non-ASCII, and an own `__proto__`
 * member, in both directions, while another lane is served meanwhile.
 */
describe('a request and an answer of many small values: the same values, in the same order', () => {
  let gw: RunningGateway;
  before(async () => {
    gw = await startGateway(`${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
  fix: { prefix: fix, domain: public, stdio: { command: node, args: ["${FIXTURE}", "--big"] } }
lanes:
  big: { servers: [fix] }
  other: { servers: [fix] }
`);
  });
  after(async () => gw.stop());

  it('60,000 array items and 60,000 keyed members come back exact, with 80,000 values of the request echoed', async () => {
    const tb = await gw.token('big');
    const to = await gw.token('other');
    const pad = Array.from({ length: 80_000 }, (_, i) => (i % 11 === 0 ? `p"\\${i}😀` : i % 4 === 0 ? { n: i } : `p${i}`));
    const large = modernPost(gw.url, tb, 1, 'tools/call', { name: 'fix_big', arguments: { many: 60_000, pad } });
    const others = Array.from({ length: 10 }, (_, i) =>
      modernPost(gw.url, to, 100 + i, 'tools/call', { name: 'fix_echo', arguments: { text: `o${i}` } }),
    );
    const r = await large;
    assert.equal(r.status, 200, JSON.stringify(r.json).slice(0, 300));
    const result = (r.json as { result: { structuredContent: Record<string, unknown> } }).result;
    assert.equal(textOf(result), 'many');
    const want = { ...(manyValues(60_000) as Record<string, unknown>), echoed: pad };
    // Compared as text: the order of members and an own __proto__ member count.
    const got = JSON.stringify(result.structuredContent);
    const expected = JSON.stringify(want);
    let at = 0;
    while (at < got.length && got[at] === expected[at]) at += 1;
    assert.ok(got === expected, `the answer differs at ${at}: ${got.slice(at - 40, at + 40)} | ${expected.slice(at - 40, at + 40)}`);
    assert.equal(Object.getPrototypeOf(result.structuredContent.keyed), Object.prototype);
    (await Promise.all(others)).forEach((o, i) => {
      assert.equal(o.status, 200);
      assert.equal(textOf((o.json as { result: unknown }).result), `o${i}`);
    });
  });
});
