import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MALLOC_DEFAULTS, mallocEnv } from '../../src/supervision/malloc-env.js';

describe("glibc's malloc settings for the processes lanegate starts", () => {
  it("gives lanegate's defaults where the starting process has none, and keeps the operator's own where it has", () => {
    assert.deepEqual(mallocEnv({}), MALLOC_DEFAULTS);
    assert.deepEqual(Object.keys(MALLOC_DEFAULTS).sort(), ['MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_', 'MALLOC_TRIM_THRESHOLD_']);
    const own = mallocEnv({ MALLOC_TRIM_THRESHOLD_: '131072', MALLOC_ARENA_MAX: '4', PATH: '/bin' });
    assert.deepEqual(own, { ...MALLOC_DEFAULTS, MALLOC_TRIM_THRESHOLD_: '131072', MALLOC_ARENA_MAX: '4' });
    assert.ok(!('PATH' in own), 'nothing but the malloc settings');
  });
});
