import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { retryAdvice } from '../../src/front/dispatch.js';

describe('every error a lane sees says whether retrying can help', () => {
  it('a refusal or a withheld inventory lasts until an operator acts', () => {
    for (const reason of [
      'upstream "bad" refused by the guard (layer semantic, echo: markup aimed at the model); see: lanegate inspect bad',
      'upstream "pinned" withheld: inventory drift (version 1.0.0 expected, 2.0.0 seen); accept the new inventory by updating servers.pinned.expect',
      'upstream "dup" refused: listed twice under prefix dup',
    ])
      assert.match(retryAdvice(reason), /retrying will not help/, reason);
  });
  it('a crash or a restart passes by itself', () => {
    for (const reason of ['upstream "fix" crashed (exit 3); restarting in 1.2s (crash 1)', 'upstream "fix" failed to start: spawn error'])
      assert.match(retryAdvice(reason), /retry in a few seconds/, reason);
  });
});
