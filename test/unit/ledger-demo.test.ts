import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Ledger, parseLedger, serializeLedger } from '../../src/records/ledger.js';
import { blankPaths, judgeDemonstration, normaliseOutput, substitute } from '../../src/shareability/demonstration.js';
import { divergentFacets, facetsOf, shapeOf } from '../../src/shareability/facets.js';
import { launchIdentity } from '../../src/shareability/identity.js';
import { draftProbe } from '../../src/shareability/draft-probe.js';

describe('hazard ledger (contract 1)', () => {
  it('parses a JSON value that is not a schema-1 ledger as no observations (the file reader quarantines it)', () => {
    assert.deepEqual(parseLedger(undefined), {});
    assert.deepEqual(parseLedger({ schema: 2, servers: { s: { codes: ['unroutable_server_request'] } } }), {});
    assert.deepEqual(parseLedger('x'), {});
  });
  it('drops unknown codes on read and absorbs a flat-only record as the empty identity', () => {
    const d = parseLedger({
      schema: 1,
      servers: { s: { codes: ['unroutable_server_request', 'typo_code'], count: 2, lastSeen: 5 }, t: { codes: ['typo'] } },
    });
    assert.deepEqual(d, { s: { '': { codes: ['unroutable_server_request'], count: 2, lastSeen: 5 } } });
  });
  it('writes the per-identity map plus its flat union', () => {
    const out = serializeLedger({
      s: {
        a: { codes: ['unroutable_server_request'], count: 1, lastSeen: 3 },
        b: { codes: ['unattributable_notification'], count: 2, lastSeen: 7 },
      },
    }) as {
      servers: Record<string, { codes: string[]; count: number; lastSeen: number }>;
    };
    assert.deepEqual(out.servers.s?.codes, ['unroutable_server_request', 'unattributable_notification']);
    assert.equal(out.servers.s?.count, 3);
    assert.equal(out.servers.s?.lastSeen, 7);
  });
  it('refuses an unknown code on write; reads by identity; loses nothing recorded during a flush', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'lg-ledger-')), 'records', 'observed-hazards.json');
    const l = new Ledger(file);
    assert.throws(() => l.record('s', 'id1', 'made_up', 1), /unknown hazard code/);
    l.record('s', 'id1', 'unroutable_server_request', 1);
    const flushing = l.flush();
    l.record('s', 'id2', 'unattributable_notification', 2);
    await flushing;
    assert.equal(l.dirty, true, 'the observation made during the flush is still pending');
    await l.flush();
    assert.equal(l.dirty, false);
    const again = new Ledger(file);
    assert.deepEqual(again.codesFor('s', 'id1'), ['unroutable_server_request']);
    assert.deepEqual(again.codesFor('s', 'id2'), ['unattributable_notification']);
    assert.deepEqual(again.codesFor('s', 'id3'), [], 'a new identity reads as unobserved');
    writeFileSync(file, '{ corrupt');
    assert.deepEqual(new Ledger(file).codesFor('s', 'id1'), ['ledger_unreadable'], 'a corrupt ledger never reads as empty');
  });
});

describe('launch identity and facets', () => {
  const parts = { commandPath: '/usr/bin/node', args: ['s.js'], env: { A: '1' }, secretNames: ['TOKEN'], cwd: '/w', fingerprint: 'bin=1' };
  it('changes with every part except secret values (which are not in it)', () => {
    const id = launchIdentity(parts);
    for (const over of [
      { args: ['t.js'] },
      { env: { A: '2' } },
      { secretNames: ['OTHER'] },
      { cwd: '/x' },
      { fingerprint: 'bin=2' },
      { commandPath: '/bin/node' },
    ]) {
      assert.notEqual(launchIdentity({ ...parts, ...over }), id, JSON.stringify(over));
    }
    assert.equal(launchIdentity({ ...parts, secretNames: ['TOKEN'] }), id);
  });
  it('collapses free-form leaves, keeps flags, compares tools as a set and annotations as a multiset', () => {
    assert.deepEqual(shapeOf({ name: 'x', version: '1', flags: { a: true }, list: [1] }), {
      name: '•',
      version: '•',
      flags: { a: true },
      list: ['•'],
    });
    const init = { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'a', version: '1' } };
    const f1 = facetsOf(init, [{ name: 'a', annotations: { readOnlyHint: true } }, { name: 'b' }]);
    const f2 = facetsOf({ ...init, serverInfo: { name: 'b', version: '2' } }, [
      { name: 'b' },
      { name: 'a', annotations: { readOnlyHint: true } },
    ]);
    assert.deepEqual(divergentFacets(f1, f2), []);
    const f3 = facetsOf({ ...init, capabilities: { tools: {}, logging: {} } }, [{ name: 'a' }]);
    assert.deepEqual(divergentFacets(f1, f3), ['capabilities', 'tools', 'annotations']);
  });
});

describe('demonstration judgement', () => {
  const probe = [{ method: 'tools/call' as const, name: 't', args: {}, volatile: ['structuredContent.at'] }];
  const canaries = { base: 'cZERO', base2: 'cONE', a: 'cA', b: 'cB', c: 'cC' };
  const out = (text: string, at = 1) => ({ content: [{ type: 'text', text }], structuredContent: { at } });
  const judge = (o: { base?: unknown; base2?: unknown; a?: unknown; b?: unknown; c?: unknown }, dflt: unknown = out('x')) =>
    judgeDemonstration({
      probe,
      canaries,
      base: [o.base ?? dflt],
      base2: [o.base2 ?? o.base ?? dflt],
      a: [o.a ?? dflt],
      b: [o.b ?? dflt],
      c: [o.c ?? dflt],
      listed: 5,
    });
  it('passes identical outputs modulo canaries and volatile paths, with the step in its scope', () => {
    const r = judge({ base: out('hi cZERO', 1), base2: out('hi cONE', 9), a: out('hi cA', 2), b: out('hi cB', 3), c: out('hi cC', 4) });
    assert.equal(r.passed, true);
    assert.deepEqual(r.coverage, { exercised: ['tools/call t'], listed: 5 });
    assert.deepEqual(r.scope, ['tools/call t']);
  });
  it('refutes contamination, influence and persistence, naming the request', () => {
    const cont = judge({ b: out('x cA') });
    assert.ok(
      cont.refutations.some(
        (x) => x.kind === 'contamination' && x.request === 'tools/call t' && /lane B saw lane A's canary cA/.test(x.detail),
      ),
    );
    assert.deepEqual(cont.scope, []);
    const infl = judge({ base: out('1'), a: out('1'), b: out('2'), c: out('1') });
    assert.deepEqual(
      infl.refutations.map((x) => x.kind),
      ['influence'],
    );
    assert.match(infl.refutations[0]?.detail ?? '', /content\[0\]\.text/);
    assert.ok(judge({ c: out('x cA') }).refutations.some((x) => x.kind === 'persistence'));
    assert.ok(judge({ base2: out('x cZERO') }).refutations.some((x) => x.kind === 'persistence' && /fresh process/.test(x.detail)));
  });
  it('noise is told from influence: a leaf that differs between two fresh solo runs is volatile', () => {
    const rnd = (id: string, text = 'same') => ({
      content: [
        { type: 'text', text },
        { type: 'text', text: id },
      ],
    });
    const noisy = judge({ base: rnd('r1'), base2: rnd('r2'), a: rnd('r3'), b: rnd('r4'), c: rnd('r5') });
    assert.equal(noisy.passed, true, JSON.stringify(noisy.refutations));
    assert.deepEqual(noisy.volatile, { 'tools/call t': ['content[1].text'] });
    // The stable leaf changing under concurrency is still influence, whatever the noise beside it.
    const moved = judge({ base: rnd('r1'), base2: rnd('r2'), a: rnd('r3', 'other'), b: rnd('r4'), c: rnd('r5') });
    assert.deepEqual(
      moved.refutations.map((x) => x.kind),
      ['influence'],
    );
  });
  it('a restart that only changes outputs is a note, not a refutation', () => {
    const r = judge({ c: out('y') });
    assert.equal(r.passed, true);
    assert.equal(r.notes.length, 1);
  });
  it('a step that errors in any run is not covered; none covered is not a pass', () => {
    const e = { error: 'no such tool' };
    const r = judge({}, e);
    assert.equal(r.passed, false);
    assert.equal(r.error, 'no probe step succeeded in every run');
    const flaky = judge({ c: { content: [], isError: true } });
    assert.deepEqual(flaky.coverage.exercised, []);
    assert.deepEqual(flaky.scope, []);
  });
  it('substitutes and normalises canaries and volatile paths', () => {
    assert.deepEqual(substitute({ q: 'x {canary}', n: [1, '{canary}'] }, 'C'), { q: 'x C', n: [1, 'C'] });
    assert.deepEqual(substitute({ q: 'x {{canary}}' }, 'C'), { q: 'x C' }, 'the older spelling still works');
    assert.deepEqual(
      blankPaths(
        {
          items: [
            { id: 1, v: 2 },
            { id: 3, v: 4 },
          ],
        },
        ['items[*].id'],
      ),
      {
        items: [
          { id: '<volatile>', v: 2 },
          { id: '<volatile>', v: 4 },
        ],
      },
    );
    assert.equal(normaliseOutput({ t: 'a C' }, 'C', []), normaliseOutput({ t: 'a D' }, 'D', []));
  });
});

describe('draft-probe', () => {
  it('proposes read-only tools only, with a canary in the first required string', () => {
    const steps = draftProbe([
      {
        name: 'search',
        annotations: { readOnlyHint: true },
        inputSchema: { type: 'object', properties: { q: { type: 'string' }, n: { type: 'integer' } }, required: ['q', 'n'] },
      },
      { name: 'delete', annotations: { readOnlyHint: false, destructiveHint: true }, inputSchema: { type: 'object' } },
      { name: 'unannotated', inputSchema: { type: 'object' } },
    ]);
    assert.deepEqual(steps, [{ tool: 'search', args: { q: '{canary}', n: 1 } }]);
  });
});
