import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type AssessInput, assess, STRENGTHS } from '../../src/shareability/assess.js';
import { SCHEMA, currentRow, parseVerdicts, type VerdictRow } from '../../src/records/verdicts.js';

const row = (over: Partial<VerdictRow> = {}): VerdictRow => ({
  identity: 'id-1',
  schema: SCHEMA,
  ran: true,
  callerSensitive: false,
  divergent: [],
  declaresCallerIdentity: false,
  evaluatedAt: 1,
  ...over,
});
const passed = { ran: true, passed: true, refutations: [], notes: [], coverage: { exercised: ['echo'], listed: 3 }, scope: ['echo'] };
const base = (over: Partial<AssessInput> = {}): AssessInput => ({
  server: { name: 's', share: 'auto', perLaneLaunch: false, transport: 'stdio', enabled: true, hasProbe: true },
  domain: { name: 'pub', kind: 'shared', perLane: false },
  hazards: [],
  guard: 'admitted',
  ...over,
});

describe('assess: the evidence ordering', () => {
  it('nothing observed → unknown, dedicated', () => {
    const a = assess(base());
    assert.equal(a.strength, 'unknown');
    assert.equal(a.placement, 'dedicated');
    assert.deepEqual(
      a.reasons.map((r) => r.code),
      ['not_probed'],
    );
  });
  it('pre-flight only → measured, still dedicated (determinism is not isolation)', () => {
    const a = assess(base({ row: row() }));
    assert.equal(a.strength, 'measured');
    assert.equal(a.placement, 'dedicated');
    assert.deepEqual(a.refusedBy, ['statelessness']);
  });
  it('pre-flight that diverged → no_objection with a note that gates nothing', () => {
    const a = assess(base({ row: row({ callerSensitive: true, divergent: ['serverInfo'] }) }));
    assert.equal(a.strength, 'no_objection');
    assert.equal(a.reasons.find((r) => r.code === 'handshake_not_reproducible')?.grade, 'note');
    const withDemo = assess(base({ row: row({ callerSensitive: true, divergent: ['serverInfo'], demonstration: passed }) }));
    assert.equal(withDemo.placement, 'shared');
  });
  it('demonstrated → shared when every axis agrees', () => {
    const a = assess(base({ row: row({ demonstration: passed }) }));
    assert.equal(a.strength, 'demonstrated');
    assert.equal(a.placement, 'shared');
    assert.deepEqual(a.refusedBy, []);
  });
  it('declared outranks demonstrated, and still needs a demonstration to share', () => {
    const d = assess(base({ row: row({ declaresCallerIdentity: true }) }));
    assert.equal(d.strength, 'declared');
    assert.equal(d.placement, 'dedicated');
    assert.equal(assess(base({ row: row({ declaresCallerIdentity: true, demonstration: passed }) })).placement, 'shared');
  });
  it('a declared server refuted by the ledger: refuted, dedicated (an observation outranks everything)', () => {
    const a = assess(base({ row: row({ declaresCallerIdentity: true, demonstration: passed }), hazards: ['unroutable_server_request'] }));
    assert.equal(a.strength, 'refuted');
    assert.equal(a.placement, 'dedicated');
    assert.deepEqual(a.refusedBy, ['ledger']);
    assert.deepEqual(a.reasons[0], { code: 'observed_hazard', grade: 'refuted', detail: 'unroutable_server_request' });
  });
  it('a refuted demonstration outranks a structural disqualification', () => {
    const refuted = {
      ...passed,
      passed: false,
      refutations: [{ kind: 'contamination' as const, request: 'tools/call read', detail: "lane B saw lane A's canary x" }],
    };
    const a = assess(base({ row: row({ demonstration: refuted }), server: { ...base().server, share: 'never' } }));
    assert.equal(a.strength, 'refuted');
    assert.match(a.reasons[0]?.detail ?? '', /contamination in tools\/call read/);
  });
  it('disqualified: principal domain, per-lane secrets, share never, per-lane launch, not stdio', () => {
    const cases: [Partial<AssessInput>, string, string][] = [
      [{ domain: { name: 'm', kind: 'principal', perLane: true } }, 'principal_domain', 'trust_domain'],
      [{ domain: { name: 'o', kind: 'shared', perLane: true } }, 'per_lane_secrets', 'trust_domain'],
      [{ server: { ...base().server, share: 'never' } }, 'operator_pinned_dedicated', 'operator'],
      [{ server: { ...base().server, perLaneLaunch: true } }, 'per_lane_launch', 'launch'],
      [{ server: { ...base().server, transport: 'http' } }, 'not_stdio', 'statelessness'],
    ];
    for (const [over, code, axis] of cases) {
      const a = assess(base({ row: row({ demonstration: passed }), ...over }));
      assert.equal(a.strength, 'disqualified', code);
      assert.equal(a.placement, 'dedicated', code);
      assert.ok(
        a.reasons.some((r) => r.code === code),
        code,
      );
      assert.ok(a.refusedBy.includes(axis as never), `${code} refused by ${axis}: ${a.refusedBy.join(',')}`);
    }
  });
  it('a principal domain is never shared, whatever the evidence, and the review is not sent after a probe', () => {
    const a = assess(
      base({ domain: { name: 'm', kind: 'principal', perLane: true }, row: row({ declaresCallerIdentity: true, demonstration: passed }) }),
    );
    assert.equal(a.placement, 'dedicated');
    assert.deepEqual(a.refusedBy, ['trust_domain']);
    assert.match(a.remedies.trust_domain ?? '', /structurally/);
  });
  it('the guard refusing, or not having seen the surface, keeps it dedicated', () => {
    assert.deepEqual(assess(base({ row: row({ demonstration: passed }), guard: 'refused' })).refusedBy, ['guard']);
    assert.deepEqual(assess(base({ row: row({ demonstration: passed }), guard: 'unseen' })).refusedBy, ['guard']);
  });
  it('no probe: the review says nothing can be demonstrated and how to fix it', () => {
    const a = assess(base({ row: row(), server: { ...base().server, hasProbe: false } }));
    assert.ok(a.reasons.some((r) => r.code === 'no_probe'));
    assert.match(a.remedies.statelessness ?? '', /draft-probe s/);
  });
  it('strengths are totally ordered as the design says', () => {
    assert.deepEqual([...STRENGTHS], ['refuted', 'disqualified', 'declared', 'demonstrated', 'measured', 'no_objection', 'unknown']);
  });
});

describe('verdict cache (contract 2)', () => {
  it('drops a row of another SCHEMA and a row that cannot say whether the pre-flight ran', () => {
    const file = parseVerdicts({
      entries: {
        good: row(),
        old: row({ schema: 'lanegate-shareability-1' }),
        vague: { ...row(), ran: 'yes' },
        missing: (() => {
          const r: Partial<VerdictRow> = row();
          delete r.ran;
          return r;
        })(),
      },
      applied: ['x', 3],
    });
    assert.deepEqual(Object.keys(file.entries), ['good']);
    assert.deepEqual(file.applied, ['x']);
    assert.deepEqual(parseVerdicts('garbage'), { entries: {}, applied: [] });
  });
  it('an identity mismatch hides the row; a version mismatch (both known) drops it; an unknown version does not', () => {
    assert.deepEqual(currentRow(row(), 'id-2', undefined), { drop: false });
    assert.deepEqual(currentRow(row({ reportedVersion: '1.0' }), 'id-1', '1.1'), { drop: true });
    assert.equal(currentRow(row({ reportedVersion: '1.0' }), 'id-1', undefined).row?.identity, 'id-1');
    assert.equal(currentRow(row(), 'id-1', '9.9').row?.identity, 'id-1');
  });
});
