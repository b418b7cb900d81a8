import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DemonstrationResult } from '../../src/records/verdicts.js';
import { inScope, parseScopeKey, scopeKey } from '../../src/shareability/scope.js';
import { withStanding } from '../../src/shareability/standing.js';

const scope = new Set(['tools/call echo', 'prompts/get greet', 'resources/read demo://a']);

describe('evidence scope', () => {
  it('a demonstrated tool, prompt or resource read is inside; listings and ping always are', () => {
    assert.deepEqual(inScope(scope, 'tools/call', { name: 'echo', arguments: {} }), { inside: true });
    assert.deepEqual(inScope(scope, 'prompts/get', { name: 'greet' }), { inside: true });
    assert.deepEqual(inScope(scope, 'resources/read', { uri: 'demo://a' }), { inside: true });
    for (const m of ['ping', 'tools/list', 'prompts/list', 'resources/list', 'resources/templates/list'])
      assert.deepEqual(inScope(new Set(), m, {}), { inside: true }, m);
  });
  it('every other tool, prompt or resource is outside, named as the request the lane made', () => {
    assert.deepEqual(inScope(scope, 'tools/call', { name: 'toggle-simulated-logging' }), {
      inside: false,
      request: 'tools/call toggle-simulated-logging',
    });
    assert.deepEqual(inScope(scope, 'prompts/get', { name: 'echo' }), { inside: false, request: 'prompts/get echo' });
    assert.deepEqual(inScope(scope, 'resources/read', { uri: 'demo://b' }), { inside: false, request: 'resources/read demo://b' });
  });
  it('subscriptions and completions follow the read or prompt they are about', () => {
    assert.deepEqual(inScope(scope, 'resources/subscribe', { uri: 'demo://a' }), { inside: true });
    assert.deepEqual(inScope(scope, 'resources/subscribe', { uri: 'demo://b' }), {
      inside: false,
      request: 'resources/subscribe demo://b',
    });
    assert.deepEqual(inScope(scope, 'completion/complete', { ref: { type: 'ref/prompt', name: 'greet' } }), { inside: true });
    assert.equal(inScope(scope, 'completion/complete', { ref: { type: 'ref/prompt', name: 'other' } }).inside, false);
    assert.equal(inScope(scope, 'completion/complete', { ref: { type: 'ref/resource', uri: 'demo://a' } }).inside, true);
  });
  it('an unknown method, a missing name and logging/setLevel are never inside', () => {
    assert.deepEqual(inScope(scope, 'tasks/get', {}), { inside: false, request: 'tasks/get' });
    assert.equal(inScope(scope, 'tools/call', {}).inside, false);
    assert.equal(inScope(scope, 'tools/call', undefined).inside, false);
    assert.equal(inScope(scope, 'logging/setLevel', { level: 'debug' }).inside, false);
  });
  it('a task-augmented call of a covered tool is outside (task state lives in the server)', () => {
    assert.deepEqual(inScope(scope, 'tools/call', { name: 'echo', arguments: {}, task: { ttl: 60000 } }), {
      inside: false,
      request: 'tools/call echo (as a task)',
    });
  });
  it('scope keys round-trip; malformed ones are refused', () => {
    assert.deepEqual(parseScopeKey(scopeKey('resources/read', 'file:///a b')), { method: 'resources/read', name: 'file:///a b' });
    assert.equal(parseScopeKey('tools/list x'), undefined);
    assert.equal(parseScopeKey('tools/call'), undefined);
  });
});

const demo = (o: Partial<DemonstrationResult>): DemonstrationResult => ({
  ran: true,
  passed: true,
  refutations: [],
  notes: [],
  coverage: { exercised: [], listed: 16 },
  scope: [],
  ...o,
});

describe('a refutation stands for the request it refuted', () => {
  const refuted = demo({
    passed: false,
    refutations: [{ kind: 'influence', request: 'tools/call get-env', detail: 'lane A differed' }],
    coverage: { exercised: ['tools/call echo', 'tools/call get-env'], listed: 16 },
    scope: ['tools/call echo'],
  });
  it('dropping the refuted tool from the probe does not clear it: the server stays refuted', () => {
    const next = demo({ coverage: { exercised: ['tools/call echo'], listed: 16 }, scope: ['tools/call echo'] });
    const r = withStanding(refuted, next, 100);
    assert.equal(r?.passed, false);
    assert.deepEqual(
      r?.refutations.map((x) => [x.request, x.standingSince]),
      [['tools/call get-env', 100]],
    );
    assert.deepEqual(r?.scope, ['tools/call echo']);
    // ...and it keeps standing, with its first date, through later passes.
    assert.equal(withStanding(r, next, 200)?.refutations[0]?.standingSince, 100);
  });
  it('dropping the whole probe does not clear it either', () => {
    const r = withStanding(refuted, undefined, 100);
    assert.equal(r?.passed, false);
    assert.equal(r?.refutations.length, 1);
  });
  it('a step that errors does not clear it; a demonstration that exercises it and passes does', () => {
    const erred = demo({ coverage: { exercised: ['tools/call echo'], listed: 16 }, scope: ['tools/call echo'] });
    assert.equal(withStanding(refuted, erred, 1)?.passed, false);
    const cleared = demo({
      coverage: { exercised: ['tools/call echo', 'tools/call get-env'], listed: 16 },
      scope: ['tools/call echo', 'tools/call get-env'],
    });
    assert.deepEqual(withStanding(refuted, cleared, 1), cleared);
  });
});
