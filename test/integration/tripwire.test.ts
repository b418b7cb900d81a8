import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { cli, operatorApi, policyHead, ROOT, type RunningGateway, startGateway, measurePass } from '../helpers/gateway.js';
import { modernPost, textOf } from '../helpers/mcp.js';
import { sleep, waitFor } from '../helpers/procs.js';

const LEAKY = path.join(ROOT, 'test/fixtures/servers/cross-leaky.mjs');

// Two servers that pass the demonstration and leak later: one after 20 calls, one after 5 s.
const POLICY = `${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
  volume:
    prefix: vol
    domain: public
    stdio: { command: node, args: ["${LEAKY}", "--leak-after-calls", "20"] }
    probe: [ { tool: note, args: { text: "{{canary}}" } } ]
  clock:
    prefix: clk
    domain: public
    stdio: { command: node, args: ["${LEAKY}", "--leak-after-ms", "5000"] }
    probe: [ { tool: note, args: { text: "{{canary}}" } } ]
lanes:
  a: { servers: [volume, clock] }
  b: { servers: [volume, clock] }
`;

interface Child {
  server: string;
  placement: string;
  lane?: string;
}
interface Row {
  server: string;
  placement: string;
  strength: string;
  hazards: { current: boolean; record: { codes: string[] } }[];
}

describe('the tripwire: a shared process that starts leaking is caught in service', () => {
  let gw: RunningGateway;
  const tokens: Record<string, string> = {};
  const children = async (server: string): Promise<Child[]> =>
    Object.values(((await operatorApi(gw, '/api/processes')) as { hosts: Record<string, { children: Child[] }> }).hosts).flatMap((h) =>
      h.children.filter((c) => c.server === server),
    );
  const review = async (): Promise<Record<string, Row>> => {
    const r = await cli(['review', '--json', '--policy', gw.policyFile, '--url', gw.url]);
    return Object.fromEntries((JSON.parse(String(r.stdout)) as { servers: Row[] }).servers.map((s) => [s.server, s]));
  };

  /**
   * Lanes a and b take turns calling `prefix_note`, each with secrets of its own. Counts answers that
   * reached a lane carrying the other lane's secret, and answers withheld by the tripwire.
   */
  const alternate = async (prefix: string, rounds: number, pauseMs: number) => {
    const sent: Record<string, string[]> = { a: [], b: [] };
    let crossed = 0;
    let withheld = 0;
    let firstWithheldAt = -1;
    const failures: string[] = [];
    for (let i = 0; i < rounds; i += 1) {
      for (const lane of ['a', 'b'] as const) {
        const secret = `${lane}secret${randomBytes(6).toString('hex')}`;
        sent[lane]?.push(secret);
        const r = await modernPost(gw.url, tokens[lane] as string, i, 'tools/call', {
          name: `${prefix}_note`,
          arguments: { text: secret },
        });
        const result = r.json?.result as { isError?: boolean } | undefined;
        const err = (r.json?.error as { message?: string } | undefined) ?? (result?.isError ? { message: textOf(result) } : undefined);
        if (err) {
          if (/answer withheld by the tripwire: it carried text that another lane sent/.test(err.message ?? '')) {
            withheld += 1;
            if (firstWithheldAt < 0) firstWithheldAt = i;
          } else failures.push(err.message ?? 'error');
          continue;
        }
        const text = textOf(r.json?.result);
        if (!text.includes(secret)) failures.push(`no own text in ${text}`);
        const other = lane === 'a' ? 'b' : 'a';
        if (sent[other]?.some((s) => text.includes(s))) crossed += 1;
      }
      if (pauseMs > 0) await sleep(pauseMs);
    }
    return { crossed, withheld, firstWithheldAt, failures };
  };

  before(async () => {
    gw = await startGateway(POLICY);
    tokens.a = await gw.token('a');
    tokens.b = await gw.token('b');
    await measurePass(gw);
    // Both pass the demonstration and are shared at once (live promotion).
    await waitFor(async () => {
      const r = await review();
      return r.volume?.placement === 'shared' && r.clock?.placement === 'shared' ? true : undefined;
    }, 20_000);
  });
  after(async () => gw.stop());

  it('volume-triggered: shared after measure, caught with at most 2 answers carrying another lane’s text, then dedicated', async () => {
    const r = await alternate('vol', 150, 0);
    assert.deepEqual(r.failures, []);
    assert.ok(r.crossed <= 2, `answers carrying another lane's text: ${r.crossed}`);
    assert.ok(r.withheld >= 1, 'the leaking answer was withheld');
    assert.ok(r.firstWithheldAt >= 9 && r.firstWithheldAt <= 12, `caught when it started leaking (round ${r.firstWithheldAt})`);
    const kids = await children('volume');
    assert.ok(kids.length >= 2 && kids.every((c) => c.placement === 'dedicated'), JSON.stringify(kids));
    const row = (await review()).volume;
    assert.equal(row?.placement, 'dedicated');
    assert.ok(
      row?.hazards.some((h) => h.current && h.record.codes.includes('tripwire')),
      JSON.stringify(row?.hazards),
    );
    const metrics = await (
      await fetch(gw.url.replace(/\/mcp$/, '/metrics'), { headers: { authorization: `Bearer ${gw.operatorToken}` } })
    ).text();
    assert.match(metrics, /lanegate_hazards_total\{server="volume",code="tripwire"\} [1-9]/);
    assert.match(metrics, /lanegate_placement_changes_total\{server="volume",change="retreated"\} 1/);
    assert.match(gw.stderr(), /"event":"tripwire"/);
    assert.doesNotMatch(gw.stderr(), /[ab]secret[0-9a-f]{12}/, 'the log never carries a lane’s text');
  });

  it('time-triggered: caught the same way once the process has run long enough', async () => {
    const r = await alternate('clk', 120, 50);
    assert.deepEqual(r.failures, []);
    assert.ok(r.crossed <= 2, `answers carrying another lane's text: ${r.crossed}`);
    assert.ok(r.withheld >= 1);
    assert.equal((await review()).clock?.placement, 'dedicated');
    assert.ok((await children('clock')).every((c) => c.placement === 'dedicated'));
  });

  it('the next start keeps both dedicated: the hazard is in the ledger under their launch identities', async () => {
    const dir = gw.dir;
    await gw.stop();
    gw = await startGateway(readFileSync(path.join(dir, 'policy.yaml'), 'utf8'), { dir });
    tokens.a = await gw.token('a');
    tokens.b = await gw.token('b');
    const rows = await review();
    for (const s of ['volume', 'clock']) {
      assert.equal(rows[s]?.placement, 'dedicated', s);
      assert.equal(rows[s]?.strength, 'refuted', s);
    }
    const r = await alternate('vol', 3, 0);
    assert.deepEqual(r.failures, []);
    assert.ok((await children('volume')).every((c) => c.placement === 'dedicated'));
  });
});
