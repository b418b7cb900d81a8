import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cli, fixtureProbedPolicy, measurePass, type RunningGateway, startGateway } from '../helpers/gateway.js';

const POLICY = fixtureProbedPolicy(['a', 'b']);

interface Row {
  server: string;
  placement: string;
  identity: string;
  reasons: { code: string; detail: string }[];
  refusedBy: { axis: string; remedy: string }[];
}

describe('records fail closed: an unreadable records file never reads as "nothing wrong"', () => {
  let gw: RunningGateway;
  let records: string;
  const review = async (): Promise<{ code: number; row: Row | undefined; stderr: string }> => {
    const r = await cli(['review', '--json', '--policy', gw.policyFile, '--url', 'http://127.0.0.1:1']);
    const rows = (JSON.parse(String(r.stdout)) as { servers: Row[] }).servers;
    return { code: r.exitCode ?? -1, row: rows.find((x) => x.server === 'fix'), stderr: String(r.stderr) };
  };
  const restart = async (): Promise<void> => {
    await gw.stop();
    gw = await startGateway(POLICY, { dir: gw.dir });
  };
  const copies = (name: string): string[] => readdirSync(records).filter((f) => f.startsWith(`${name}.corrupt-`));

  // Measured, not restarted: the first row is the offline review's (--url reaches no gateway), read
  // from the records the pass wrote, and the next test stops the gateway before it starts again.
  before(async () => {
    gw = await startGateway(POLICY);
    await measurePass(gw);
    records = path.join(gw.stateDir, 'records');
  });
  after(async () => gw.stop());

  it('measured, the server is shared', async () => {
    assert.equal((await review()).row?.placement, 'shared');
  });

  it('a valid hazard makes it dedicated; the same ledger truncated to 60 bytes keeps it dedicated, logged, copied', async () => {
    const identity = (await review()).row?.identity ?? '';
    await gw.stop();
    const hazard = { codes: ['unroutable_server_request'], count: 1, lastSeen: 1 };
    const ledger = JSON.stringify({ schema: 1, servers: { fix: { identities: { [identity]: hazard }, ...hazard } } }, null, 2);
    writeFileSync(path.join(records, 'observed-hazards.json'), ledger);
    gw = await startGateway(POLICY, { dir: gw.dir });
    assert.equal((await review()).row?.placement, 'dedicated');
    await gw.stop();
    writeFileSync(path.join(records, 'observed-hazards.json'), ledger.slice(0, 60));
    gw = await startGateway(POLICY, { dir: gw.dir });
    const r = await review();
    assert.equal(r.row?.placement, 'dedicated', 'a truncated ledger is not "no hazards"');
    assert.ok(r.row?.reasons.some((x) => x.code === 'observed_hazard' && x.detail === 'ledger_unreadable'));
    assert.match(r.row?.refusedBy.find((x) => x.axis === 'ledger')?.remedy ?? '', /unreadable \(quarantined\)/);
    assert.equal(r.code, 1, 'review exits 1 while a records file is unreadable');
    assert.match(r.stderr, /observed-hazards\.json/);
    assert.match(gw.stderr(), /"event":"records_unreadable".*observed-hazards\.json/);
    assert.equal(copies('observed-hazards.json').length, 1);
    assert.equal(readFileSync(path.join(records, copies('observed-hazards.json')[0] as string), 'utf8'), ledger.slice(0, 60));
    // The placement the hosts got says so too.
    assert.match(gw.stderr(), /"event":"host_placements".*"fix":"dedicated"/);
    // A restart does not forget the quarantine, even after the front rewrote the file.
    await restart();
    assert.equal((await review()).row?.placement, 'dedicated');
    assert.equal(copies('observed-hazards.json').length, 1, 'the copy is kept once, never overwritten');
  });

  it('the operator removes the ledger: shared again; corrupt verdicts then mean no evidence (dedicated), logged, copied', async () => {
    await gw.stop();
    rmSync(path.join(records, 'observed-hazards.json'));
    gw = await startGateway(POLICY, { dir: gw.dir });
    assert.equal((await review()).row?.placement, 'shared');
    await gw.stop();
    const file = path.join(records, 'shareability-verdicts.json');
    writeFileSync(file, readFileSync(file, 'utf8').slice(0, 80));
    gw = await startGateway(POLICY, { dir: gw.dir });
    assert.match(gw.stderr(), /"event":"records_unreadable".*shareability-verdicts\.json/);
    assert.match(gw.stderr(), /"event":"host_placements".*"fix":"dedicated"/);
    assert.equal(copies('shareability-verdicts.json').length, 1);
  });

  for (const name of ['guard.json', 'trust.json']) {
    it(`an unreadable ${name} stops serve and check, naming the file`, async () => {
      await gw.stop();
      const file = path.join(records, name);
      const good = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
      writeFileSync(file, '{"schema":1,"servers":{"fix":{"status":"adm');
      await assert.rejects(
        startGateway(POLICY, { dir: gw.dir }),
        (e: Error) => e.message.includes(name) && /records_corrupt/.test(e.message),
      );
      const check = await cli(['check', '--policy', gw.policyFile]);
      assert.equal(check.exitCode, 1);
      assert.match(String(check.stderr), new RegExp(`${name.replace('.', '\\.')}.*serve refuses to start`));
      if (good === undefined) rmSync(file);
      else writeFileSync(file, good);
      gw = await startGateway(POLICY, { dir: gw.dir });
    });
  }
});
