import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { retryAdvice } from '../../src/front/mcp/dispatch.js';
import { absenceOfError, remedyForAbsence } from '../../src/link/absence.js';
import { LanegateError } from '../../src/errors.js';

describe('every error a lane sees says whether retrying can help', () => {
  it('a refusal, a name collision or a withheld inventory lasts until an operator acts', () => {
    for (const code of ['refused', 'collision', 'drift'] as const) assert.match(retryAdvice(code), /retrying will not help/, code);
  });
  it('a crash, a failed start or an unknown cause passes by itself', () => {
    for (const code of ['crashed', 'start_failed', 'unavailable', undefined] as const)
      assert.match(retryAdvice(code), /retry in a few seconds/, String(code));
  });
  it('the host turns errors into codes, and the front turns codes into remedies', () => {
    assert.equal(
      absenceOfError(new LanegateError('upstream_unavailable', 'upstream "x" failed to start: spawn error', { kind: 'start_failed' })).code,
      'start_failed',
    );
    assert.equal(absenceOfError(new LanegateError('upstream_refused', 'command /bin/x no longer exists')).code, 'start_failed');
    assert.equal(
      absenceOfError(new LanegateError('upstream_unavailable', 'upstream "x" crashed (exit 3)', { kind: 'crashed' })).code,
      'crashed',
    );
    assert.equal(absenceOfError('weird').code, 'unavailable');
    assert.match(remedyForAbsence('bad', { code: 'refused', item: 'echo' }), /lanegate inspect bad --tool echo/);
    // A name a lane chose to be huge is not repeated into every status answer (attack round 6).
    const long = remedyForAbsence('every', { code: 'refused', item: `f0-${'n'.repeat(30_000)}.gz` });
    assert.ok(long.length < 300, `${long.length} characters`);
    assert.match(long, /lanegate inspect every;/);
    assert.match(remedyForAbsence('dup', { code: 'collision' }), /servers\.dup\.prefix/);
  });
});
