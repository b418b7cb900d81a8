import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addPrefix, ANATOMY, splitPrefix, targetOf, withTarget } from '../../src/naming/anatomy.js';

describe('the request-anatomy table', () => {
  it('finds what each forwarded method names, and nothing for the rest', () => {
    assert.deepEqual(targetOf('tools/call', { name: 'fix_echo' }), { kind: 'name', value: 'fix_echo' });
    assert.deepEqual(targetOf('resources/subscribe', { uri: 'mem+file:///a' }), { kind: 'uri', value: 'mem+file:///a' });
    assert.deepEqual(targetOf('completion/complete', { ref: { type: 'ref/prompt', name: 'p_x' } }), { kind: 'name', value: 'p_x' });
    assert.deepEqual(targetOf('completion/complete', { ref: { type: 'ref/resource', uri: 'r+u' } }), { kind: 'uri', value: 'r+u' });
    assert.equal(targetOf('completion/complete', { ref: { type: 'ref/other' } }), undefined);
    assert.equal(targetOf('tools/list', {}), undefined);
    assert.deepEqual(Object.keys(ANATOMY).sort(), [
      'completion/complete',
      'prompts/get',
      'resources/read',
      'resources/subscribe',
      'resources/unsubscribe',
      'tools/call',
    ]);
  });

  it('the prefix transform is reversible for every kind, and only the target changes', () => {
    for (const [method, params] of [
      ['tools/call', { name: 'echo', arguments: { a: 1 } }],
      ['resources/read', { uri: 'file:///x' }],
      ['completion/complete', { ref: { type: 'ref/resource', uri: 'file:///y' }, argument: { name: 'a', value: 'b' } }],
    ] as const) {
      const t = targetOf(method, params);
      assert.ok(t);
      const prefixed = withTarget(method, params, addPrefix(t, 'pre'));
      const back = splitPrefix(targetOf(method, prefixed) ?? t);
      assert.equal(back?.prefix, 'pre');
      assert.deepEqual(withTarget(method, prefixed, back?.rest), params);
    }
  });
});
