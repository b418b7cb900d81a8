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
  it('reads a missing, corrupt or future file as nothing observed', () => {
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
    assert.deepEqual(new Ledger(file).codesFor('s', 'id1'), []);
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
  const probe = [{ tool: 't', args: {}, volatile: ['structuredContent.at'] }];
  const canaries = { base: 'cBASE', a: 'cA', b: 'cB', c: 'cC' };
  const out = (text: string, at = 1) => ({ content: [{ type: 'text', text }], structuredContent: { at } });
  it('passes identical outputs modulo canaries and volatile paths', () => {
    const r = judgeDemonstration({
      probe,
      canaries,
      base: [out('hi cBASE', 1)],
      a: [out('hi cA', 2)],
      b: [out('hi cB', 3)],
      c: [out('hi cC', 4)],
      listed: 5,
    });
    assert.equal(r.passed, true);
    assert.deepEqual(r.coverage, { exercised: ['t'], listed: 5 });
  });
  it('refutes contamination, influence and persistence', () => {
    const cont = judgeDemonstration({ probe, canaries, base: [out('x')], a: [out('x')], b: [out('x cA')], c: [out('x')], listed: 1 });
    assert.ok(cont.refutations.some((x) => x.kind === 'contamination' && /lane B saw lane A's canary cA/.test(x.detail)));
    const infl = judgeDemonstration({ probe, canaries, base: [out('1')], a: [out('1')], b: [out('2')], c: [out('1')], listed: 1 });
    assert.deepEqual(
      infl.refutations.map((x) => x.kind),
      ['influence'],
    );
    const pers = judgeDemonstration({ probe, canaries, base: [out('x')], a: [out('x')], b: [out('x')], c: [out('x cA')], listed: 1 });
    assert.ok(pers.refutations.some((x) => x.kind === 'persistence'));
  });
  it('a restart that only changes outputs is a note, not a refutation', () => {
    const r = judgeDemonstration({ probe, canaries, base: [out('x')], a: [out('x')], b: [out('x')], c: [out('y')], listed: 1 });
    assert.equal(r.passed, true);
    assert.equal(r.notes.length, 1);
  });
  it('is not a pass when no probe step succeeded', () => {
    const e = { error: 'no such tool' };
    const r = judgeDemonstration({ probe, canaries, base: [e], a: [e], b: [e], c: [e], listed: 1 });
    assert.equal(r.passed, false);
    assert.equal(r.error, 'no probe step succeeded');
  });
  it('substitutes and normalises canaries and volatile paths', () => {
    assert.deepEqual(substitute({ q: 'x {{canary}}', n: [1, '{{canary}}'] }, 'C'), { q: 'x C', n: [1, 'C'] });
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
    assert.deepEqual(steps, [{ tool: 'search', args: { q: '{{canary}}', n: 1 } }]);
  });
});
