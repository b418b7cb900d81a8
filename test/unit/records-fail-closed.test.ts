import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { readRecord, writeAtomicAsync } from '../../src/records/atomic.js';
import { guardFile, readGuard } from '../../src/records/guard-file.js';
import { Ledger, ledgerFile } from '../../src/records/ledger.js';
import { addTrust, readTrust, trustFile } from '../../src/records/trust-file.js';
import { readVerdicts, verdictFile } from '../../src/records/verdicts.js';

const stateDir = (): string => {
  const d = mkdtempSync(path.join(tmpdir(), 'lg-records-'));
  mkdirSync(path.join(d, 'records'), { recursive: true });
  return d;
};
const corruptCopies = (file: string): string[] =>
  readdirSync(path.dirname(file)).filter((f) => f.startsWith(`${path.basename(file)}.corrupt-`));

describe('records fail closed', () => {
  it('tells missing from corrupt from schema-invalid', () => {
    const d = stateDir();
    const f = path.join(d, 'records', 'x.json');
    assert.deepEqual(
      readRecord(f, () => undefined),
      { status: 'missing' },
    );
    writeFileSync(f, '{"schema":1');
    assert.equal(readRecord(f, () => undefined).status, 'corrupt');
    writeFileSync(f, '{"schema":2}');
    const r = readRecord(f, (j) => ((j as { schema: number }).schema === 1 ? undefined : 'wrong schema'));
    assert.deepEqual(r, { status: 'corrupt', reason: 'fails its schema: wrong schema' });
  });

  it('a truncated ledger quarantines every server, keeps a copy, and the quarantine survives the next write and a restart', async () => {
    const d = stateDir();
    const file = ledgerFile(d);
    const good = new Ledger(file, true);
    good.record('everything', 'id1', 'unroutable_server_request', 1);
    await good.flush();
    writeFileSync(file, readFileSync(file, 'utf8').slice(0, 60));
    const l = new Ledger(file, true);
    assert.deepEqual(l.codesFor('any-server', 'any-id'), ['ledger_unreadable']);
    assert.match(l.problem?.reason ?? '', /not valid JSON/);
    assert.match(l.problem?.remedy ?? '', /quarantined/);
    const copies = corruptCopies(file);
    assert.equal(copies.length, 1);
    assert.equal(readFileSync(path.join(d, 'records', copies[0] as string), 'utf8').length, 60);
    l.record('memory', 'id2', 'unattributable_notification', 2);
    await l.flush();
    const after = new Ledger(file, true);
    assert.deepEqual(after.codesFor('everything', 'id1'), ['ledger_unreadable'], 'still quarantined after a restart');
    assert.deepEqual(after.codesFor('memory', 'id2'), ['unattributable_notification', 'ledger_unreadable']);
    assert.equal(corruptCopies(file).length, 1, 'the copy is never overwritten nor multiplied');
    // The operator acts: the quarantine key removed, the ledger reads normally again.
    const j = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    delete j.quarantined;
    writeFileSync(file, JSON.stringify(j));
    assert.deepEqual(new Ledger(file).codesFor('everything', 'id1'), []);
    assert.deepEqual(new Ledger(file).codesFor('memory', 'id2'), ['unattributable_notification']);
  });

  it('a future-schema ledger is unreadable, not empty', () => {
    const d = stateDir();
    writeFileSync(ledgerFile(d), JSON.stringify({ schema: 2, servers: {} }));
    assert.deepEqual(new Ledger(ledgerFile(d)).codesFor('s', 'i'), ['ledger_unreadable']);
  });

  it('unreadable verdicts mean no evidence, with a kept copy and a remedy', () => {
    const d = stateDir();
    writeFileSync(verdictFile(d), '{"entries": {"everything": {"ran": tr');
    const r = readVerdicts(d, true);
    assert.deepEqual(r.verdicts.entries, {});
    assert.match(r.problem?.remedy ?? '', /lanegate measure/);
    assert.ok(r.problem?.copy && existsSync(r.problem.copy));
    assert.equal(readVerdicts(d).problem?.copy, undefined, 'a reader that does not keep copies none');
  });

  it('an unreadable guard or trust file is an error naming the file, never an empty set of decisions', () => {
    const d = stateDir();
    writeFileSync(guardFile(d), '{"schema":1,"servers":{"a":');
    assert.throws(
      () => readGuard(d, true),
      (e: Error & { code?: string }) => e.code === 'records_corrupt' && e.message.includes('guard.json'),
    );
    assert.equal(corruptCopies(guardFile(d)).length, 1);
    writeFileSync(trustFile(d), JSON.stringify({ schema: 1, overrides: [{ server: 'x' }] }));
    assert.throws(() => readTrust(d), /trust\.json fails its schema: override 1 is malformed/);
    // A trust write on top of an unreadable file refuses instead of dropping the overrides in it.
    assert.throws(() => addTrust(d, []), /records_corrupt/);
    assert.deepEqual(JSON.parse(readFileSync(trustFile(d), 'utf8')), { schema: 1, overrides: [{ server: 'x' }] });
  });

  it('the async atomic write leaves no temp file and replaces whole', async () => {
    const d = stateDir();
    const f = path.join(d, 'records', 'y.json');
    await Promise.all([writeAtomicAsync(f, '{"a":1}'), writeAtomicAsync(f, '{"a":2}')]);
    assert.ok(['{"a":1}', '{"a":2}'].includes(readFileSync(f, 'utf8')));
    assert.deepEqual(
      readdirSync(path.dirname(f)).filter((x) => x.endsWith('.tmp')),
      [],
    );
  });
});
