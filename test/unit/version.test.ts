import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { VERSION } from '../../src/install-paths.js';
import { CLIENT_INFO } from '../../src/upstream/conn.js';
import { importGraph } from '../helpers/import-graph.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string };

/** Files another branch is changing, where the literal is left for the lead; and the demo upstream, which is a server of its own. */
const STILL_LITERAL = ['src/demo/mailbox-server.ts'];

describe("lanegate's version comes from package.json, in one place", () => {
  it('is the package version, and the clientInfo lanegate gives upstreams says it', () => {
    assert.equal(VERSION, pkg.version);
    assert.equal(CLIENT_INFO.version, pkg.version);
  });

  it('no other file in src/ writes it as a literal', () => {
    const literal = new RegExp(`['"\`]${pkg.version.replace(/\./g, '\\.')}['"\`]`);
    const found = [...importGraph(join(repo, 'src'), repo).keys()].filter((f) => literal.test(readFileSync(join(repo, f), 'utf8')));
    assert.deepEqual(found.sort(), STILL_LITERAL);
  });
});
