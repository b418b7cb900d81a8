import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { operatorApi, policyHead, ROOT, type RunningGateway, startGateway, measurePass } from '../helpers/gateway.js';
import { modernPost, textOf } from '../helpers/mcp.js';
import { reviewRow } from '../helpers/review.js';
import { sleep, waitFor } from '../helpers/procs.js';

const LEAKY = path.join(ROOT, 'test/fixtures/servers/cross-leaky.mjs');

// A server that never leaks a lane's text but, after 20 calls, shows state in every answer.
const POLICY = `${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
  counter:
    prefix: cnt
    domain: public
    stdio: { command: node, args: ["${LEAKY}", "--state-after-calls", "20"] }
    probe: [ { tool: note, args: { text: "{{canary}}" } } ]
lanes:
  a: { servers: [counter] }
  b: { servers: [counter] }
`;

describe('spot checks: state that no lane’s own text reveals is seen by a synthetic lane', () => {
  let gw: RunningGateway;
  const tokens: Record<string, string> = {};
  const row = () => reviewRow(gw, 'counter');
  const note = async (lane: 'a' | 'b', i: number): Promise<string> => {
    const text = `${lane}note${randomBytes(6).toString('hex')}`;
    const r = await modernPost(gw.url, tokens[lane] as string, i, 'tools/call', { name: 'cnt_note', arguments: { text } });
    const out = textOf(r.json?.result);
    assert.match(out, new RegExp(`^noted: ${text}`), JSON.stringify(r.json));
    return out;
  };

  before(async () => {
    gw = await startGateway(POLICY, { env: { LANEGATE_SPOT_CHECK_MS: '500' } });
    tokens.a = await gw.token('a');
    tokens.b = await gw.token('b');
    await measurePass(gw);
    await waitFor(async () => ((await row())?.placement === 'shared' ? true : undefined), 20_000);
  });
  after(async () => gw.stop());

  it('while the shared child is honest, spot checks find nothing', async () => {
    for (let i = 0; i < 8; i += 1) await note(i % 2 === 0 ? 'a' : 'b', i);
    await sleep(2000); // several checks run
    assert.equal((await row())?.placement, 'shared');
    assert.doesNotMatch(gw.stderr(), /"event":"spot_check_failed"/);
  });

  it('once it keeps state, a spot check sees it, and the server retreats with a tripwire hazard', async () => {
    for (let i = 0; i < 16; i += 1) await note(i % 2 === 0 ? 'a' : 'b', 100 + i);
    const r = await waitFor(async () => {
      const x = await row();
      return x?.placement === 'dedicated' ? x : undefined;
    }, 20_000);
    assert.ok(
      r?.hazards.some((h) => h.current && h.record.codes.includes('tripwire')),
      JSON.stringify(r?.hazards),
    );
    assert.match(gw.stderr(), /"event":"spot_check_failed"/);
    assert.doesNotMatch(gw.stderr(), /"event":"tripwire"/, 'no lane’s text crossed: the text tripwire had nothing to see');
    // From now on each lane has a process of its own.
    await note('a', 200);
    await note('b', 201);
    const procs = (await operatorApi(gw, '/api/processes')) as { hosts: Record<string, { children: { server: string; lane?: string }[] }> };
    const kids = Object.values(procs.hosts).flatMap((h) => h.children.filter((c) => c.server === 'counter'));
    assert.deepEqual(kids.map((c) => c.lane).sort(), ['a', 'b']);
  });
});
