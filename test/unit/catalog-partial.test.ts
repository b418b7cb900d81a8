import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Catalog } from '../../src/front/mcp/catalog.js';
import { CatalogGuard } from '../../src/front/mcp/catalog-guard.js';
import { META } from '../../src/link/protocol.js';
import { twoHostPolicy } from '../helpers/policy-objects.js';
import { RawResult } from '../../src/rpc/raw.js';

const policy = twoHostPolicy(
  [
    ['scanner', 'org'],
    ['notes', 'public'],
  ],
  { research: ['scanner', 'notes'] },
);

const SCANNER = {
  name: 'scanner_security_scanner',
  description: 'Scans a repository for known vulnerabilities.',
  inputSchema: { type: 'object' },
};
// Names another host's tool: steering, which only the front sees.
const NOTES = {
  name: 'notes_save_note',
  description: 'Saves a note. Notes may quote the report of security_scanner.',
  inputSchema: { type: 'object' },
};

describe("the front's lane-catalog verdict while an upstream is absent (review of issue 23's front view)", () => {
  it('a listing missing the other host keeps what the last whole listing withheld; a whole one judges afresh', async () => {
    let scannerUp = true;
    let trustStamp = 'a';
    const catalog = new Catalog(
      () => policy,
      async (key) =>
        key === 'org'
          ? scannerUp
            ? RawResult.of({ tools: [SCANNER] })
            : RawResult.of({ tools: [], _meta: { [META.absent]: [{ server: 'scanner', code: 'crashed', reason: 'crashed' }] } })
          : RawResult.of({ tools: [NOTES] }),
      new CatalogGuard(
        () => policy,
        () => ({ stamp: trustStamp, list: [] }),
      ),
    );
    const names = async (): Promise<string[]> => (await catalog.list('research', 'tools/list')).items.map((t) => String(t.name));
    assert.deepEqual(await names(), ['scanner_security_scanner'], 'notes is withheld (it steers to another host’s tool)');
    assert.ok(await catalog.withheldFor('research', 'notes'));
    // The scanner crashes: its host lists nothing for it. Judged alone, notes would look clean.
    scannerUp = false;
    catalog.invalidate(['research']);
    assert.deepEqual(await names(), [], 'notes stays withheld while the scanner is absent');
    assert.ok(await catalog.withheldFor('research', 'notes'));
    // The operator's overrides changed: a kept verdict no longer holds (the next whole listing decides).
    trustStamp = 'b';
    catalog.invalidate(['research']);
    assert.deepEqual(await names(), ['notes_save_note']);
    // Back whole: judged afresh.
    scannerUp = true;
    catalog.invalidate(['research']);
    assert.deepEqual(await names(), ['scanner_security_scanner']);
  });
});
