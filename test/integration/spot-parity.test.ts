import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cli, EVERYTHING, operatorApi, policyHead, ROOT, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { modernPost, textOf } from '../helpers/mcp.js';
import { sleep, waitFor } from '../helpers/procs.js';

const LEAKY = path.join(ROOT, 'test/fixtures/servers/cross-leaky.mjs');

// Two servers whose answers reveal the process's own environment and working directory:
// server-everything's get-env (proposed by draft-probe), and a fixture that says where it runs and,
// after 20 calls, how many notes it has taken (real per-process state).
const POLICY = `${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
  everything:
    prefix: every
    domain: public
    stdio: { command: node, args: ["${EVERYTHING}", "stdio"], env: { PARITY_MARK: "kept" } }
    probe:
      - { tool: echo, args: { message: "{canary}" } }
      - { tool: get-env, args: {} }
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

interface Row {
  server: string;
  placement: string;
  hazards: { current: boolean; record: { codes: string[] } }[];
}

/** The spot checks a gateway's log shows for one server. */
const spotChecks = (log: string, server: string): number =>
  log.split('\n').filter((l) => l.includes('"event":"spot_check"') && l.includes(`"server":"${server}"`)).length;

describe('spot checks compare a shared child with fresh processes launched as it is (env, HOME, cwd)', () => {
  let gw: RunningGateway;
  const tokens: Record<string, string> = {};
  const row = async (server: string): Promise<Row | undefined> => {
    const r = await cli(['review', '--json', '--policy', gw.policyFile, '--url', gw.url]);
    return (JSON.parse(String(r.stdout)) as { servers: Row[] }).servers.find((s) => s.server === server);
  };
  let id = 0;
  const call = async (lane: 'a' | 'b', name: string, args: Record<string, unknown>): Promise<string> => {
    id += 1;
    const r = await modernPost(gw.url, tokens[lane] as string, id, 'tools/call', { name, arguments: args });
    assert.equal(r.json?.error, undefined, JSON.stringify(r.json));
    return textOf(r.json?.result);
  };

  before(async () => {
    gw = await startGateway(POLICY, { env: { LANEGATE_SPOT_CHECK_MS: '500' } });
    tokens.a = await gw.token('a');
    tokens.b = await gw.token('b');
    await operatorApi(gw, '/api/measure', 'POST');
    await waitFor(async () => !((await operatorApi(gw, '/api/measure')) as { running: boolean }).running || undefined, 120_000, 200);
    for (const s of ['everything', 'where'])
      await waitFor(async () => ((await row(s))?.placement === 'shared' ? true : undefined), 20_000);
  });
  after(async () => gw.stop());

  it('get-env on the shared child: its HOME is the shared working directory, and spot checks find no difference', async () => {
    const env = JSON.parse(await call('a', 'every_get-env', {})) as Record<string, string>;
    assert.equal(env.PARITY_MARK, 'kept');
    assert.equal(env.HOME, path.join(gw.stateDir, 'work', 'public', 'everything'), 'the shared child’s HOME is its own directory');
    const before = spotChecks(gw.stderr(), 'everything');
    for (let i = 0; i < 12; i += 1) {
      const lane = i % 2 === 0 ? 'a' : 'b';
      assert.match(await call(lane, 'every_echo', { message: `m${lane}${i}x0a1b2c3d4e5f` }), /m[ab]\d+x0a1b2c3d4e5f/);
      await call(lane, 'every_get-env', {});
      await sleep(250);
    }
    await waitFor(() => (spotChecks(gw.stderr(), 'everything') >= before + 3 ? true : undefined), 20_000);
    await sleep(1500); // a difference is confirmed on one more fresh process before it is logged
    assert.doesNotMatch(gw.stderr(), /"event":"spot_check_failed","server":"everything"/);
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
