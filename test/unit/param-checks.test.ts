import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { paramsProblem, text } from '../../src/front/mcp/param-checks.js';

const hostile = { toString: 1 };

describe('request params are checked before anything reads them', () => {
  it('names and URIs must be strings: an object, an array or a hostile toString is invalid params', () => {
    for (const name of [hostile, ['every_echo'], 7, null, undefined])
      assert.match(paramsProblem('tools/call', { name }) ?? '', /params\.name must be a string/, JSON.stringify(name));
    assert.match(paramsProblem('prompts/get', { name: hostile }) ?? '', /params\.name/);
    for (const m of ['resources/read', 'resources/subscribe', 'resources/unsubscribe'])
      assert.match(paramsProblem(m, { uri: ['every+x'] }) ?? '', /params\.uri must be a string/, m);
    assert.match(paramsProblem('completion/complete', { ref: { type: 'ref/prompt', name: hostile } }) ?? '', /ref\.name/);
    assert.match(paramsProblem('completion/complete', { ref: 'x' }) ?? '', /ref must be an object/);
    assert.match(paramsProblem('tools/call', { name: 'x', arguments: [1] }) ?? '', /arguments must be an object/);
    assert.match(paramsProblem('tools/call', [1, 2]) ?? '', /params must be an object/);
  });
  it('logging/setLevel needs a real level', () => {
    assert.match(paramsProblem('logging/setLevel', { level: hostile }) ?? '', /logging level/);
    assert.equal(paramsProblem('logging/setLevel', { level: 'warning' }), undefined);
  });
  it('well-formed params pass; methods it does not know are left to the method', () => {
    assert.equal(paramsProblem('tools/call', { name: 'every_echo', arguments: { message: 'x' } }), undefined);
    assert.equal(paramsProblem('resources/read', { uri: 'every+demo://a' }), undefined);
    assert.equal(paramsProblem('completion/complete', { ref: { type: 'ref/resource', uri: 'u' }, argument: {} }), undefined);
    assert.equal(paramsProblem('tools/list', undefined), undefined);
    assert.equal(paramsProblem('toString', {}), undefined);
  });
  it('text() never calls a lane-supplied toString', () => {
    assert.equal(text(hostile), '');
    assert.equal(text('a'), 'a');
    assert.equal(text(['a']), '');
  });
});
