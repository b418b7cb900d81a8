import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cli, EVERYTHING, policyHead, ROOT, type RunningGateway, startGateway, measurePass } from '../helpers/gateway.js';
import { modernPost } from '../helpers/mcp.js';
import { reviewRow, spotChecks, laneCaller } from '../helpers/review.js';
import { sleep, waitFor } from '../helpers/procs.js';
import { parse } from 'yaml';

const LEAKY = path.join(ROOT, 'test/fixtures/servers/cross-leaky.mjs');

// Two servers whose answers reveal the process's own environment and working directory:
// server-everything, with the probe `lanegate draft-probe` proposes for it (get-env among its
// steps), and a fixture that says where it runs and, after 20 calls, how many notes it has taken
// (real per-process state).
const policy = (everythingProbe: string): string => `${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
  everything:
    prefix: every
    domain: public
    stdio: { command: node, args: ["${EVERYTHING}", "stdio"], env: { PARITY_MARK: "kept" } }
${everythingProbe}
  where:
    prefix: wh
    domain: public
    stdio: { command: node, args: ["${LEAKY}", "--where", "--state-after-calls", "20"] }
    probe:
      - { tool: note, args: { text: "{canary}" } }
      - { tool: where, args: {} }
lanes:
  a: { servers: [everything, where] }
  b: { servers: [everything, where] }
`;

describe('spot checks compare a shared child with fresh processes launched as it is (env, HOME, cwd)', () => {
  let gw: RunningGateway;
  const tokens: Record<string, string> = {};
  const row = (server: string) => reviewRow(gw, server);
  const call = laneCaller(() => gw, tokens);

  before(async () => {
    gw = await startGateway(policy(''), { env: { LANEGATE_SPOT_CHECK_MS: '500' } });
    tokens.a = await gw.token('a');
    tokens.b = await gw.token('b');
    // As an operator does it: the server is used once, draft-probe proposes, the proposal goes in.
    await modernPost(gw.url, tokens.a as string, 1, 'tools/list');
    await waitFor(() => readFileSync(`${gw.stateDir}/records/guard.json`, 'utf8').includes('"everything"') || undefined, 10_000);
    const drafted = await cli(['draft-probe', 'everything', '--policy', gw.policyFile]);
    assert.equal(drafted.exitCode, 0, String(drafted.stderr));
    const steps = (parse(String(drafted.stdout)) as { probe: { tool: string }[] }).probe;
    assert.ok(
      steps.some((s) => s.tool === 'get-env'),
      'draft-probe proposes get-env',
    );
    // Two steps are left out. The 10 s long-running one would make each spot check take 40 s (its
    // progress is attack round 8's finding 1). get-resource-reference answers with the time of day
    // to the second: when both solo runs of the demonstration fall in one second, the lockstep run
    // a second later reads as influence and refutes the server (a flaky false refutation of its own,
    // reported in r8-spotenv.md; not the spot check's).
    const kept = steps.filter((s) => s.tool !== 'trigger-long-running-operation' && s.tool !== 'get-resource-reference');
    assert.equal(kept.length, steps.length - 2);
    writeFileSync(gw.policyFile, policy(`    probe: ${JSON.stringify(kept)}`));
    const reloaded = await cli(['reload', '--policy', gw.policyFile, '--url', gw.url]);
    assert.equal(reloaded.exitCode, 0, String(reloaded.stderr));
    await measurePass(gw);
    for (const s of ['everything', 'where']) {
      const r = await waitFor(async () => {
        const x = await row(s);
        return x?.placement === 'shared' ? x : undefined;
      }, 20_000);
      assert.equal(r?.placement, 'shared', `${s}: ${JSON.stringify(await row(s))}`);
    }
  });
  after(async () => gw.stop());

  it('get-env on the shared child: its HOME is the shared working directory, and spot checks find no difference', async () => {
    // Lane a used the server before it was promoted: it moves onto the shared child at a quiet point.
    const home = path.join(gw.stateDir, 'work', 'public', 'everything');
    const env = await waitFor(async () => {
      const e = JSON.parse(await call('a', 'every_get-env', {})) as Record<string, string>;
      return e.HOME === home ? e : undefined;
    }, 10_000);
    const moves = gw
      .stderr()
      .split('\n')
      .filter((l) => /"event":"(lane_|server_|placements_|upstream_started","server":"everything)/.test(l));
    assert.equal(env?.PARITY_MARK, 'kept', moves.join('\n'));
    const before = spotChecks(gw.stderr(), 'everything');
    for (let i = 0; i < 12; i += 1) {
      const lane = i % 2 === 0 ? 'a' : 'b';
      assert.match(await call(lane, 'every_echo', { message: `m${lane}${i}x0a1b2c3d4e5f` }), /m[ab]\d+x0a1b2c3d4e5f/);
      await call(lane, 'every_get-env', {});
      await call(lane, 'every_get-sum', { a: i, b: 1 });
      await sleep(250);
    }
    await waitFor(() => (spotChecks(gw.stderr(), 'everything') >= before + 3 ? true : undefined), 20_000);
    await sleep(1500); // a difference is confirmed on one more fresh process before it is logged
    assert.doesNotMatch(gw.stderr(), /"event":"spot_check_failed","server":"everything"/);
    assert.doesNotMatch(gw.stderr(), /"event":"lane_escalated"/, 'get-env ran inside the demonstrated scope, on the shared child');
    const steps = [...gw.stderr().matchAll(/"event":"spot_check","server":"everything","steps":(\d+)/g)].map((m) => Number(m[1]));
    assert.ok(steps.length > 0 && steps.every((n) => n >= 3), `spot checks ran the drafted steps: ${steps.join(',')}`);
    const r = await row('everything');
    assert.equal(r?.placement, 'shared');
    assert.deepEqual(
      r?.hazards.filter((h) => h.current),
      [],
      'no hazard recorded for an honest server',
    );
  });

  it('a path-revealing answer that also carries per-process state still retreats the server', async () => {
    const where = await call('a', 'wh_where', {});
    assert.match(where, new RegExp(`home=${path.join(gw.stateDir, 'work', 'public', 'where')} `));
    const before = spotChecks(gw.stderr(), 'where');
    await waitFor(() => (spotChecks(gw.stderr(), 'where') > before ? true : undefined), 20_000);
    await sleep(1500);
    assert.doesNotMatch(gw.stderr(), /"event":"spot_check_failed","server":"where"/, 'honest while stateless');
    for (let i = 0; i < 24; i += 1) await call(i % 2 === 0 ? 'a' : 'b', 'wh_note', { text: `n${i}` });
    const r = await waitFor(async () => {
      const x = await row('where');
      return x?.placement === 'dedicated' ? x : undefined;
    }, 20_000);
    assert.ok(
      r?.hazards.some((h) => h.current && h.record.codes.includes('tripwire')),
      JSON.stringify(r?.hazards),
    );
    assert.match(gw.stderr(), /"event":"spot_check_failed","server":"where","requests":\[[^\]]*"tools\/call where"/);
  });
});
