import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { modernPost, textOf } from '../helpers/mcp.js';
import { FIXTURE, policyHead, type RunningGateway, startGateway } from '../helpers/gateway.js';
// @ts-expect-error: a plain .mjs module shared with the fixture server (no types)
import { manyValues } from '../fixtures/servers/many-values.mjs';

/**
 * Issue 19: a large message crosses the front, the link and the host in steps (its parse in a
 * turn of its own, its write in slices on the link and in pieces to a child's stdin, the lines
 * behind it waiting). What must not change: the bytes, and the order in which a child reads its
 * lines (the fixture reads whole lines: a piece of one line interleaved with another would break
 * both), while another lane is served meanwhile.
 */
const tricky = (n: number): string => {
  // Two-code-unit characters at every offset parity, escapes and a line break inside the string.
  const piece = 'é 日本 😀x😀 "q" \\b\\ \n\t \u2028 ';
  return piece.repeat(Math.ceil(n / piece.length)).slice(0, n);
};

describe('large messages in steps: the same bytes, the same order, other lanes served', () => {
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

  it("a 2 MB echo and the small calls sent right behind it on the same child all come back exact; another lane's calls meanwhile too", async () => {
    const tb = await gw.token('big');
    const to = await gw.token('other');
    const text = tricky(2 * 1024 * 1024);
    const large = modernPost(gw.url, tb, 1, 'tools/call', { name: 'fix_echo', arguments: { text } });
    const behind = Array.from({ length: 8 }, (_, i) =>
      modernPost(gw.url, tb, 10 + i, 'tools/call', { name: 'fix_echo', arguments: { text: `s${i}` } }),
    );
    const others: Promise<{ status: number; json?: unknown }>[] = [];
    for (let i = 0; i < 20; i += 1)
      others.push(modernPost(gw.url, to, 100 + i, 'tools/call', { name: 'fix_echo', arguments: { text: `o${i}` } }));
    const l = await large;
    const b = await Promise.all(behind);
    assert.equal(l.status, 200);
    assert.ok(textOf((l.json as { result: unknown }).result) === text, 'the large echo is byte-exact');
    b.forEach((r, i) => {
      assert.equal(r.status, 200);
      assert.equal(textOf((r.json as { result: unknown }).result), `s${i}`);
    });
    (await Promise.all(others)).forEach((r, i) => {
      assert.equal(r.status, 200);
      assert.equal(textOf((r.json as { result: unknown }).result), `o${i}`);
    });
  });

  it('three large echoes at once on one child: each answer is its own request’s, whole', async () => {
    const tb = await gw.token('big');
    const texts = [tricky(700_000), `A${tricky(900_000)}`, `B${tricky(600_000)}`];
    const rs = await Promise.all(
      texts.map((text, i) => modernPost(gw.url, tb, 50 + i, 'tools/call', { name: 'fix_echo', arguments: { text } })),
    );
    rs.forEach((r, i) => {
      assert.equal(r.status, 200);
      assert.ok(textOf((r.json as { result: unknown }).result) === texts[i], `echo ${i} is exact`);
    });
  });

  // Attack round 39: a request and an answer of many small values (the paced parse of many values,
  // the secret scan a few thousand members a visit, the paced serialisation): the same values, in
  // the same order, with an own __proto__ member, both ways.
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

/**
 * Attack round 36 (HIGH): one lane's answer of nested percent-escapes (`%252567%`, which the secret
 * scan reads through three times) held the shared host's event loop for 12.9 s at 31 MB; every
 * other lane's call on that host waited as long. The readings are now made a step at a time.
 */
describe("one lane's answer of nested percent-escapes does not stall the host it shares", () => {
  let gw: RunningGateway;
  before(async () => {
    gw = await startGateway(`${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
  fix: { prefix: fix, domain: public, stdio: { command: node, args: ["${FIXTURE}", "--big"] } }
  calm: { prefix: calm, domain: public, stdio: { command: node, args: ["${FIXTURE}"] } }
lanes:
  big: { servers: [fix] }
  other: { servers: [calm] }
`);
  });
  after(async () => gw.stop());

  /** The other lane's slowest small call while the big lane's 30 MB answer made of `unit` comes back. */
  const worstBeside = async (unit: string, first: number): Promise<number> => {
    const tb = await gw.token('big');
    const to = await gw.token('other');
    let done = false;
    const large = modernPost(gw.url, tb, first, 'tools/call', { name: 'fix_big', arguments: { n: 30_000_000, unit } }).finally(() => {
      done = true;
    });
    const waits: number[] = [];
    for (let i = 0; !done && i < 2000; i += 1) {
      const t0 = performance.now();
      const r = await modernPost(gw.url, to, first + 1 + i, 'tools/call', { name: 'calm_echo', arguments: { text: `o${i}` } });
      waits.push(performance.now() - t0);
      assert.equal(r.status, 200);
      assert.equal(textOf((r.json as { result: unknown }).result), `o${i}`);
    }
    const l = await large;
    assert.equal(l.status, 200);
    const got = textOf((l.json as { result: unknown }).result);
    assert.equal(got.length, 30_000_000, 'the large answer arrives whole');
    assert.ok(got.startsWith(unit + unit));
    assert.ok(waits.length >= 5, `the other lane got ${waits.length} calls in while the large one ran`);
    return Math.max(...waits);
  };

  it("another lane's small calls wait no longer beside a 30 MB answer of `%252567%` than beside 30 MB of plain text (the one-block reading took 1.6 s here, 10 s before its index was typed arrays)", async () => {
    const warm = await modernPost(gw.url, await gw.token('other'), 1, 'tools/call', { name: 'calm_echo', arguments: { text: 'warm' } });
    assert.equal(warm.status, 200);
    // The same bytes through the same path, with nothing to read through: what the machine's load costs.
    const plain = await worstBeside('abcdefgh', 10_000);
    const escaped = await worstBeside('%252567%', 20_000);
    // Alone here: ~300 ms beside either; with the reading made one block again, 1.6 s beside the escapes.
    assert.ok(
      escaped < 2 * plain + 500,
      `the other lane's slowest call: ${Math.round(escaped)} ms beside the escapes, ${Math.round(plain)} ms beside plain text`,
    );
  });
});
