import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { choosePolicy } from '../../src/cli/find-policy.js';
import { policySchema } from '../../src/policy/schema.js';
import { aboutRemoved, pruneUntilValid } from '../../src/policy/tolerant.js';
import { revocationsOf } from '../../src/records/token-records.js';
import { stderrReason } from '../../src/upstream/stderr-tail.js';

describe('choosePolicy', () => {
  it('--policy, then $LANEGATE_POLICY, then the first default that exists; none: the remedy', () => {
    const has =
      (...f: string[]) =>
      (p: string) =>
        f.includes(p);
    assert.deepEqual(choosePolicy('x.yaml', 'env.yaml', has('lanegate.yaml')), { ok: true, file: 'x.yaml' });
    assert.deepEqual(choosePolicy(undefined, 'env.yaml', has('lanegate.yaml')), { ok: true, file: 'env.yaml' });
    assert.deepEqual(choosePolicy(undefined, undefined, has('lanegate.yaml', 'policies/default.yaml')), {
      ok: true,
      file: 'lanegate.yaml',
    });
    assert.deepEqual(choosePolicy(undefined, undefined, has('policies/default.yaml')), { ok: true, file: 'policies/default.yaml' });
    const none = choosePolicy(undefined, undefined, has());
    assert.equal(none.ok, false);
    assert.match(none.ok ? '' : none.detail, /--policy FILE.*LANEGATE_POLICY.*lanegate init/);
  });
});

describe('pruneUntilValid', () => {
  const doc = (servers: Record<string, unknown>, lanes: Record<string, unknown> = {}) => ({
    version: 1,
    commands: { node: { path: '/usr/bin/node' } },
    trustDomains: { public: { kind: 'shared' } },
    servers,
    lanes,
  });
  it('drops an unknown key and keeps the entry, so its cross-checks still run', () => {
    const r = pruneUntilValid(policySchema, doc({ a: { prefix: 'a', domain: 'public', shrae: 'never', stdio: { command: 'bash' } } }));
    assert.ok(r.data);
    assert.equal(r.data?.servers.a?.stdio?.command, 'bash');
    assert.equal(r.removed.size, 0);
  });
  it('a required value that is bad takes its entry out, and a reference to it is not a second problem', () => {
    const r = pruneUntilValid(
      policySchema,
      doc({ a: { prefix: 'Bad_', domain: 'public', stdio: { command: 'node' } } }, { one: { servers: ['a'] } }),
    );
    assert.ok(r.data);
    assert.equal(r.data?.servers.a, undefined);
    assert.ok(r.removed.has('servers.a'));
    assert.ok(aboutRemoved('server "a" is not declared in servers', r.removed));
    assert.ok(!aboutRemoved('server "b" is not declared in servers', r.removed));
  });
  it('does not pretend: with nothing left to take out it gives up', () => {
    assert.equal(pruneUntilValid(policySchema, 'just a string').data, undefined);
  });
});

describe('revocationsOf', () => {
  it('revoked ids and per-lane cut-offs in epoch seconds', () => {
    const r = revocationsOf({ schema: 1, issued: [], revoked: { x: '2026-01-01T00:00:00Z' }, laneCutoffs: { a: '2026-01-01T00:00:10Z' } });
    assert.ok(r.ids.has('x'));
    assert.equal(r.cutoffs.get('a'), Date.parse('2026-01-01T00:00:10Z') / 1000);
  });
});

describe('stderrReason', () => {
  it("finds Node's Cannot find module line among the stack and footer", () => {
    const lines = [
      'node:internal/modules/cjs/loader:1228',
      '  throw err;',
      '  ^',
      "Error: Cannot find module '/x/fixtrue.mjs'",
      '    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)',
      "  code: 'MODULE_NOT_FOUND',",
      'Node.js v20.20.2',
    ];
    assert.equal(stderrReason(lines), "Error: Cannot find module '/x/fixtrue.mjs'");
  });
  it('else the last useful line; nothing for nothing', () => {
    assert.equal(stderrReason(['starting', 'listening on stdio']), 'listening on stdio');
    assert.equal(stderrReason([]), undefined);
  });
});

describe('logging on a shared child, in words that are true', () => {
  it('review says what lanegate does (setLevel answered per lane), also for verdicts recorded in older words', async () => {
    const { assess } = await import('../../src/shareability/assess.js');
    const { LOGGING_WHEN_SHARED, degradationsOf } = await import('../../src/shareability/facets.js');
    assert.deepEqual(degradationsOf({ logging: {} }), [LOGGING_WHEN_SHARED]);
    assert.match(LOGGING_WHEN_SHARED, /answers logging\/setLevel per lane and never forwards it/);
    const a = assess({
      server: { name: 's', share: 'auto', perLaneLaunch: false, transport: 'stdio', enabled: true, hasProbe: true },
      domain: { name: 'pub', kind: 'shared', perLane: false },
      hazards: [],
      guard: 'admitted',
      row: {
        identity: 'id-1',
        schema: 1,
        ran: true,
        callerSensitive: false,
        divergent: [],
        declaresCallerIdentity: false,
        evaluatedAt: 1,
        degradations: ["logging: the last caller's level wins; a log line of one call may be dropped"],
      } as never,
    });
    const note = a.reasons.find((r) => r.code === 'degrades_when_shared')?.detail ?? '';
    assert.equal(note, LOGGING_WHEN_SHARED);
    assert.doesNotMatch(note, /last caller/);
  });
});

describe('insertProbe', () => {
  it('puts the probe as the last key of a block server, every other line kept, in the policy as written', async () => {
    const { readFileSync } = await import('node:fs');
    const { parse } = await import('yaml');
    const { insertProbe, probeBlock } = await import('../../src/cli/probe-block.js');
    const text = readFileSync('policies/default.yaml', 'utf8');
    const steps = [{ tool: 'read_graph', args: {} }];
    const r = insertProbe(text, 'memory', steps);
    assert.ok('text' in r);
    const out = 'text' in r ? r.text : '';
    assert.deepEqual(parse(out).servers.memory.probe, steps);
    assert.deepEqual(parse(out).servers.mail, parse(text).servers.mail);
    assert.equal(out.replace(`${probeBlock(steps, 4)}\n`, ''), text, 'the block added, every other byte kept');
    assert.match(
      out,
      /env: \{ MEMORY_FILE_PATH: "\{stateDir\}\/memory-\{lane\}\.jsonl" \} {3}# in the state dir itself: it exists\n {4}probe:\n/,
    );
    const again = insertProbe(out, 'memory', steps);
    assert.ok('error' in again && /already has a probe/.test(again.error));
    const inline = insertProbe('servers:\n  a: { prefix: a }\n', 'a', steps);
    assert.ok('error' in inline && /inline/.test(inline.error));
  });
});
