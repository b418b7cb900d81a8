import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { cli, FIXTURE, fixtureProbedPolicy, measurePass, type RunningGateway, startGateway } from '../helpers/gateway.js';

const policy = (probe: string): string => fixtureProbedPolicy(['a'], probe);

interface Row {
  server: string;
  placement: string;
  strength: string;
  scope: string[];
  refuted: string[];
  reasons: { code: string; detail: string }[];
}

describe('a refutation stands for the request it refuted', () => {
  let gw: RunningGateway;
  const row = async (): Promise<Row | undefined> => {
    const r = await cli(['review', '--json', '--policy', gw.policyFile, '--url', 'http://127.0.0.1:1']);
    return (JSON.parse(String(r.stdout)) as { servers: Row[] }).servers.find((x) => x.server === 'fix');
  };
  // Each row is read by the review from the records a measure pass wrote (offline: --url reaches no
  // gateway), so a pass is not followed by a restart: what the next start would place is what the
  // review computes from those records.
  const remeasure = async (policyText: string): Promise<void> => {
    writeFileSync(gw.policyFile, policyText);
    await gw.stop();
    gw = await startGateway(policyText, { dir: gw.dir });
    await measurePass(gw);
  };

  before(async () => {
    gw = await startGateway(policy('[{ tool: echo, args: { text: "{{canary}}" } }, { tool: count }]'));
    await measurePass(gw);
  });
  after(async () => gw.stop());

  it('a counter kept in the process is refuted by influence', async () => {
    const r = await row();
    assert.equal(r?.strength, 'refuted');
    assert.deepEqual(r?.refuted, ['tools/call count']);
  });

  it('dropping the refuted tool from the probe and measuring again does not clear it', async () => {
    await remeasure(policy('[{ tool: echo, args: { text: "{{canary}}" } }]'));
    const r = await row();
    assert.equal(r?.placement, 'dedicated');
    assert.equal(r?.strength, 'refuted');
    assert.deepEqual(r?.refuted, ['tools/call count']);
    assert.deepEqual(r?.scope, [], 'nothing shares while a refutation stands');
    assert.ok(r?.reasons.some((x) => x.code === 'demonstration_refuted' && /stands from an earlier demonstration/.test(x.detail)));
  });

  it('a nondeterministic read (the serving pid differs per process) is demonstrated, not refuted; its noise is recorded', async () => {
    // A changed launch is a new identity: the old refutation does not count for it.
    await remeasure(policy('[{ tool: pid }]').replace(`"${FIXTURE}"]`, `"${FIXTURE}", "--name", "other"]`));
    const r = await row();
    assert.equal(r?.strength, 'demonstrated', JSON.stringify(r?.reasons));
    assert.equal(r?.placement, 'shared');
    assert.deepEqual(r?.scope, ['tools/call pid']);
    const v = JSON.parse(readFileSync(`${gw.stateDir}/records/shareability-verdicts.json`, 'utf8')) as {
      entries: Record<string, { demonstration?: { volatile?: Record<string, string[]> } }>;
    };
    assert.deepEqual(v.entries.fix?.demonstration?.volatile, { 'tools/call pid': ['content[0].text'] });
  });
});
