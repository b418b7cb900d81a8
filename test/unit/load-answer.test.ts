import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readLoadAnswer, validatorFailed } from '../../src/policy/load-isolated.js';

describe("a validator child's answer (serve's init step and the reload's validator)", () => {
  it('is a LoadResult only when it is JSON with a problems list', () => {
    const ok = readLoadAnswer(JSON.stringify({ problems: [], warnings: [] }));
    assert.deepEqual(ok, { problems: [], warnings: [] });
    assert.equal(readLoadAnswer(''), 'validator answered no JSON');
    assert.equal(readLoadAnswer('{"problems": [], "pol'), 'validator answered no JSON', 'an answer cut short');
    assert.equal(readLoadAnswer('{"policy": {}}'), 'validator answered something else', 'a policy without its problems list');
    assert.equal(readLoadAnswer('null'), 'validator answered something else');
  });

  it('a failed validator is a load that failed, naming why, never a policy', () => {
    const r = validatorFailed('/p/policy.yaml', 'validator exit code 1');
    assert.equal(r.policy, undefined);
    assert.equal(r.problems.length, 1);
    assert.match(r.problems[0]?.message ?? '', /could not be validated \(validator exit code 1\)/);
  });
});
