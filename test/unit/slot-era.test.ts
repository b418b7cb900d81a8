import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { adoptEra, linkEraFor } from '../../src/host/slot-era.js';
import { newInstance } from '../../src/host/slot-instance.js';
import type { Instance } from '../../src/host/slot-types.js';
import type { Era } from '../../src/upstream/conn.js';

describe("a slot's era choice", () => {
  it('legacy and modern are fixed; match follows the lane; auto follows it until the upstream shows it does not speak it', () => {
    const none = new Set<Era>();
    for (const era of ['legacy', 'modern'] as const) {
      assert.equal(linkEraFor('legacy', none, era), 'legacy');
      assert.equal(linkEraFor('modern', none, era), 'modern');
      assert.equal(linkEraFor('match', new Set<Era>([era]), era), era);
      assert.equal(linkEraFor('auto', none, era), era);
    }
    assert.equal(linkEraFor('auto', new Set<Era>(['modern']), 'modern'), 'legacy');
    assert.equal(linkEraFor('auto', new Set<Era>(['modern']), 'legacy'), 'legacy');
    assert.equal(linkEraFor('auto', new Set<Era>(['legacy']), 'legacy'), 'modern');
  });

  it('an auto child that answered in the other era becomes that era’s child, unless one exists already', () => {
    const instances = new Map<string, Instance>();
    const unspoken = new Set<Era>();
    const child = newInstance('lane-a|modern', 'lane-a', 'modern');
    instances.set(child.key, child);
    assert.equal(adoptEra(instances, unspoken, child, 'legacy'), true);
    assert.deepEqual([...instances.keys()], ['lane-a|legacy']);
    assert.equal(child.key, 'lane-a|legacy');
    assert.equal(child.era, 'legacy');
    assert.deepEqual([...unspoken], ['modern']);

    const second = newInstance('lane-a|modern', 'lane-a', 'modern');
    instances.set(second.key, second);
    assert.equal(adoptEra(instances, unspoken, second, 'legacy'), false);
    assert.deepEqual([...instances.keys()], ['lane-a|legacy']);
    assert.equal(instances.get('lane-a|legacy'), child);
  });
});
