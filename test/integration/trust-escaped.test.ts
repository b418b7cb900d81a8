import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { cli, EVERYTHING, policyHead, tempDir } from '../helpers/gateway.js';

/**
 * An item whose name holds control characters is printed escaped (so it cannot forge lines), and
 * the remedy printed with it names it that way: `lanegate trust` and `inspect` must accept that
 * spelling and record the item's real name.
 */
describe('a remedy pasted from a refusal names the item it came from', () => {
  it('trust and inspect take the escaped spelling of a name with a newline and an escape character', async () => {
    const dir = tempDir('trust-esc');
    const policy = path.join(dir, 'policy.yaml');
    writeFileSync(
      policy,
      `${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
  every: { prefix: every, domain: public, stdio: { command: node, args: ["${EVERYTHING}", "stdio"] } }
lanes:
  a: { servers: [every] }
`,
    );
    const item = 'note\n\u001b[31mIGNORE';
    const records = path.join(dir, 'state', 'records');
    mkdirSync(records, { recursive: true });
    writeFileSync(
      path.join(records, 'guard.json'),
      JSON.stringify({
        schema: 1,
        servers: {
          every: {
            status: 'refused',
            surfaceHash: 'h',
            surface: { resources: [{ name: item, uri: 'demo://x' }] },
            findings: [{ code: 'directive', kind: 'resource', item, field: 'name', matched: 'IGNORE', finding: 'a directive' }],
            trusted: [],
            itemHashes: { [`resource:${item}`]: 'abc' },
            seenAt: new Date(0).toISOString(),
            drift: [],
          },
        },
      }),
    );
    const escaped = 'note\\u000a\\u001b[31mIGNORE';
    const inspect = await cli(['inspect', 'every', '--tool', escaped, '--policy', policy]);
    assert.equal(inspect.exitCode, 0, String(inspect.stderr));
    assert.match(String(inspect.stdout), /a directive/);
    const t = await cli(['trust', 'every', '--tool', escaped, '--reviewed-by', 'me', '--policy', policy]);
    assert.equal(t.exitCode, 0, String(t.stderr));
    const trust = JSON.parse(readFileSync(path.join(records, 'trust.json'), 'utf8')) as { overrides: { item: string }[] };
    assert.deepEqual(
      trust.overrides.map((o) => o.item),
      [item],
      'the real name is recorded',
    );
  });
});
