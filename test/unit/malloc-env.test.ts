import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { MALLOC_DEFAULTS, mallocEnv } from '../../src/supervision/malloc-env.js';

describe("glibc's malloc settings for the processes lanegate starts", () => {
  it("gives lanegate's defaults where the starting process has none, and keeps the operator's own where it has", () => {
    assert.deepEqual(mallocEnv({}), MALLOC_DEFAULTS);
    assert.deepEqual(Object.keys(MALLOC_DEFAULTS).sort(), ['MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_', 'MALLOC_TRIM_THRESHOLD_']);
    const own = mallocEnv({ MALLOC_TRIM_THRESHOLD_: '131072', MALLOC_ARENA_MAX: '4', PATH: '/bin' });
    assert.deepEqual(own, { ...MALLOC_DEFAULTS, MALLOC_TRIM_THRESHOLD_: '131072', MALLOC_ARENA_MAX: '4' });
    assert.ok(!('PATH' in own), 'nothing but the malloc settings');
  });

  it('npm start and every deploy file set the same values (they are written out there, not read from here)', () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const read = (f: string): string => readFileSync(path.join(root, f), 'utf8');
    const start = (JSON.parse(read('package.json')) as { scripts: { start: string } }).scripts.start;
    const assigned = {
      'npm start': start,
      Dockerfile: read('deploy/container/Dockerfile'),
      systemd: read('deploy/systemd/lanegate.service'),
    };
    const daemonset = read('deploy/k8s/daemonset.yaml');
    for (const [k, v] of Object.entries(MALLOC_DEFAULTS)) {
      for (const [where, text] of Object.entries(assigned)) assert.ok(text.includes(`${k}=${v}`), `${where} sets ${k}=${v}`);
      assert.match(daemonset, new RegExp(`name: ${k}\\s*\\n\\s*value: "${v}"`), `the daemonset sets ${k}=${v}`);
    }
  });
});
