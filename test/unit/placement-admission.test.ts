import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { admitLane } from '../../src/auth/admission.js';
import { parseDuration } from '../../src/auth/duration.js';
import { backoffDelay, BACKOFF_CAP_MS } from '../../src/supervision/restart.js';
import { decidePlacement, NO_EVIDENCE } from '../../src/shareability/placement.js';

describe('placement (today: no evidence, so never shared)', () => {
  const shared = { kind: 'shared' as const, perLane: false };
  const auto = { share: 'auto' as const, perLaneLaunch: false };
  const full = { demonstrated: true, hazard: false, guardAdmitted: true };

  it('shares only when every axis agrees', () => {
    assert.deepEqual(decidePlacement(auto, shared, full), { placement: 'shared', refusedBy: [] });
  });

  it('with no evidence every server is dedicated, for the statelessness axis', () => {
    const d = decidePlacement(auto, shared, NO_EVIDENCE);
    assert.equal(d.placement, 'dedicated');
    assert.ok(d.refusedBy.includes('statelessness'));
  });

  it('each axis alone refuses sharing', () => {
    assert.deepEqual(decidePlacement(auto, { kind: 'principal', perLane: true }, full).refusedBy, ['trust_domain']);
    assert.deepEqual(decidePlacement(auto, { kind: 'shared', perLane: true }, full).refusedBy, ['trust_domain']);
    assert.deepEqual(decidePlacement({ share: 'never', perLaneLaunch: false }, shared, full).refusedBy, ['operator']);
    assert.deepEqual(decidePlacement({ share: 'auto', perLaneLaunch: true }, shared, full).refusedBy, ['launch']);
    assert.deepEqual(decidePlacement(auto, shared, { ...full, hazard: true }).refusedBy, ['ledger']);
    assert.deepEqual(decidePlacement(auto, shared, { ...full, guardAdmitted: false }).refusedBy, ['guard']);
  });

  it('a principal domain is never shared, whatever the evidence', () => {
    assert.equal(decidePlacement(auto, { kind: 'principal', perLane: true }, full).placement, 'dedicated');
  });
});

describe('lane admission', () => {
  const policy = {
    lanes: {
      a: { name: 'a', servers: [], enabled: true, catalog: 'full' as const, naming: 'prefixed' as const },
      off: { name: 'off', servers: [], enabled: false, catalog: 'full' as const, naming: 'prefixed' as const },
      cut: { name: 'cut', servers: [], enabled: true, catalog: 'full' as const, naming: 'prefixed' as const, tokensNotBefore: 1000 },
    },
    revokedTokenIds: [],
  };
  const claims = (lane: string, iat = 2000, jti = 'j') => ({ lane, jti, iat, exp: 9_999_999_999 });

  it('admits a live lane', () => assert.deepEqual(admitLane(claims('a'), policy, new Set()), { ok: true, lane: 'a' }));
  it('refuses revoked ids, removed and disabled lanes, and tokens before the cut-off', () => {
    assert.equal(admitLane(claims('a', 2000, 'bad'), policy, new Set(['bad'])).ok, false);
    assert.equal(admitLane(claims('ghost'), policy, new Set()).ok, false);
    assert.equal(admitLane(claims('off'), policy, new Set()).ok, false);
    assert.equal(admitLane(claims('cut', 999), policy, new Set()).ok, false);
    assert.equal(admitLane(claims('cut', 1000), policy, new Set()).ok, true);
  });
});

describe('small pure helpers', () => {
  it('parses durations and refuses nonsense', () => {
    assert.equal(parseDuration('30d'), 30 * 86400);
    assert.equal(parseDuration('90s'), 90);
    assert.throws(() => parseDuration('30 days'), /duration/);
    assert.throws(() => parseDuration('0s'), /positive/);
  });
  it('backs off exponentially up to a cap', () => {
    assert.equal(backoffDelay(1), 500);
    assert.equal(backoffDelay(2), 1000);
    assert.equal(backoffDelay(3), 2000);
    assert.equal(backoffDelay(50), BACKOFF_CAP_MS);
  });
});
