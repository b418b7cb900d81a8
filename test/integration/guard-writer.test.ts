import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { GUARD_WRITE_DELAY_MS, GuardWriter } from '../../src/front/operator/guard-writer.js';
import { type GuardFile, guardFile } from '../../src/records/guard-file.js';
import { tempDir } from '../helpers/gateway.js';

const read = (dir: string): GuardFile => JSON.parse(readFileSync(guardFile(dir), 'utf8')) as GuardFile;
const entry = (status: 'admitted' | 'refused', n: number): GuardFile['servers'][string] => ({
  status,
  surfaceHash: String(n),
  surface: { resources: Array.from({ length: n }, (_, i) => ({ uri: `demo://${i}`, name: `r${i}` })) },
  findings: [],
  trusted: [],
  itemHashes: {},
  seenAt: new Date(0).toISOString(),
  drift: [],
});

/** guard.json on a real disk: verdicts at once, a growing surface in one write a second. */
describe('the front writes guard records', () => {
  it('a changed verdict is on disk at once; surface changes under the same verdict share one later write', async () => {
    const dir = tempDir('guard-writer');
    const guard: GuardFile = { schema: 1, servers: {} };
    const w = new GuardWriter(guard, dir, pino({ level: 'silent' }));
    guard.servers.s = entry('refused', 1);
    w.changed(true);
    assert.equal(read(dir).servers.s?.status, 'refused', 'written before changed() returned');
    for (let n = 2; n <= 50; n++) {
      guard.servers.s = entry('refused', n);
      w.changed(false);
    }
    assert.equal(read(dir).servers.s?.surfaceHash, '1', 'not yet: the surface only grew');
    await new Promise((r) => setTimeout(r, GUARD_WRITE_DELAY_MS + 300));
    assert.equal(read(dir).servers.s?.surfaceHash, '50', 'the latest surface, in one write');
    guard.servers.s = entry('refused', 51);
    w.changed(false);
    await w.flush();
    assert.equal(read(dir).servers.s?.surfaceHash, '51', 'flush (at close) writes what is pending');
    assert.ok(existsSync(guardFile(dir)));
  });

  it('a verdict written while a batched write is in flight is what the file holds in the end', async () => {
    const dir = tempDir('guard-writer-race');
    const guard: GuardFile = { schema: 1, servers: {} };
    const w = new GuardWriter(guard, dir, pino({ level: 'silent' }));
    guard.servers.s = entry('admitted', 2000);
    w.changed(false);
    const batched = w.flush();
    await new Promise((r) => setImmediate(r)); // the batched write is in flight, with the admitted text
    guard.servers.s = entry('refused', 2001);
    w.changed(true);
    await batched;
    await new Promise((r) => setTimeout(r, 200));
    await w.flush();
    assert.equal(read(dir).servers.s?.status, 'refused');
    assert.equal(read(dir).servers.s?.surfaceHash, '2001');
  });
});
