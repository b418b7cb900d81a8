import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { askedOf, firstOutside } from '../../src/host/promotion.js';

const asked = (...xs: [string, Record<string, unknown>][]) => new Map(xs.map(([m, p]) => [JSON.stringify(askedOf(m, p)), askedOf(m, p)]));

describe('live promotion: which lanes on their own children may move', () => {
  const scope = new Set(['tools/call echo', 'resources/read demo://a']);

  it('keeps only what the scope check reads of a request (never the arguments)', () => {
    assert.deepEqual(askedOf('tools/call', { name: 'echo', arguments: { secret: 'x' }, _meta: { progressToken: 1 } }), {
      method: 'tools/call',
      params: { name: 'echo' },
    });
    assert.deepEqual(askedOf('tools/call', { name: 'echo', task: {} }).params, { name: 'echo', task: true });
  });

  it('a lane that asked only in-scope requests (and listings) may move', () => {
    assert.equal(
      firstOutside(scope, asked(['tools/call', { name: 'echo' }], ['tools/list', {}], ['resources/subscribe', { uri: 'demo://a' }])),
      undefined,
    );
    assert.equal(firstOutside(scope, undefined), undefined, 'a lane that asked nothing');
  });

  it('a lane that asked anything else stays, and the first such request is named', () => {
    assert.equal(firstOutside(scope, asked(['tools/call', { name: 'echo' }], ['tools/call', { name: 'toggle' }])), 'tools/call toggle');
    assert.equal(firstOutside(scope, asked(['tools/call', { name: 'echo', task: {} }])), 'tools/call echo (as a task)');
    assert.match(firstOutside(scope, 'many') ?? '', /more than 256 distinct requests/);
  });
});
