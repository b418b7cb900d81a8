import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validatePolicyText } from '../../src/policy/load.js';
import { policyJsonSchema } from '../../src/policy/json-schema.js';
import { readFileSync } from 'node:fs';

const head = `version: 1
gateway: { listen: 127.0.0.1:9000, stateDir: /tmp/lanegate-unit-state }
commands:
  node: { path: "{node}" }
trustDomains:
  pub: { kind: shared }
  mail: { kind: principal, secrets: { TOKEN: { file: "/tmp/lanegate-unit-{lane}" } } }
`;

const check = (body: string) => validatePolicyText(head + body, '/policies/p.yaml', { checkSecrets: false });

describe('policy validation (pure part)', () => {
  it('resolves a good policy: placeholders, per-lane facts, cut-off', () => {
    const r = check(`servers:
  mem:
    prefix: mem
    domain: pub
    stdio: { command: node, args: ["{policyDir}/srv.js"], env: { FILE: "{stateDir}/{lane}.json" } }
  box: { prefix: box, domain: mail, http: { url: "http://127.0.0.1:9999/mcp", headers: { Authorization: "Bearer {secret:TOKEN}" } } }
lanes:
  l1: { servers: [mem, box], tokensNotBefore: "2026-01-01T00:00:00Z" }
`);
    assert.deepEqual(r.problems, []);
    const p = r.policy;
    assert.ok(p);
    const mem = p.servers.mem;
    assert.equal(mem?.transport.kind, 'stdio');
    if (mem?.transport.kind === 'stdio') {
      assert.deepEqual(mem.transport.args, ['/policies/srv.js']);
      assert.equal(mem.transport.env.FILE, '/tmp/lanegate-unit-state/{lane}.json');
      assert.equal(mem.transport.commandPath.startsWith('/'), true);
    }
    assert.equal(mem?.perLaneLaunch, true);
    assert.equal(p.domains.mail?.perLane, true);
    assert.equal(p.domains.pub?.perLane, false);
    assert.equal(p.lanes.l1?.tokensNotBefore, Date.parse('2026-01-01T00:00:00Z') / 1000);
    assert.equal(p.gateway.port, 9000);
  });

  it('refuses a server with both or neither transport, a non-loopback listen, a bad prefix and an unknown secret', () => {
    const r = validatePolicyText(
      head.replace('127.0.0.1:9000', '0.0.0.0:9000') +
        `servers:
  a: { prefix: Bad_Prefix, domain: pub }
lanes: {}
`,
      '/p.yaml',
      { checkSecrets: false },
    );
    const msgs = r.problems.map((p) => `${p.path} ${p.message}`).join('\n');
    assert.match(msgs, /gateway\.listen .*loopback/);
    assert.match(msgs, /servers\.a\.prefix/);
    assert.match(msgs, /exactly one of `stdio` or `http`/);
    const s = check(`servers:
  b: { prefix: b, domain: pub, http: { url: "http://127.0.0.1:1/mcp", headers: { X: "{secret:NOPE}" } } }
`);
    assert.match(s.problems.map((p) => p.message).join('\n'), /secret "NOPE" which trust domain "pub" does not declare/);
  });

  it('refuses every shell metacharacter, in command paths, args and env', () => {
    for (const bad of [';', '|', '&', '`', '$(', '>', '<', '\\n']) {
      const r = check(`servers:
  a: { prefix: a, domain: pub, stdio: { command: node, args: ["ok", "x${bad}y"], env: { E: "v${bad}" } } }
`);
      const metas = r.problems.filter((p) => /shell metacharacter/.test(p.message));
      assert.equal(metas.length, 2, `${bad}: ${JSON.stringify(r.problems)}`);
    }
  });

  it('a probe on a principal-domain server is refused: it would never run', () => {
    const r = check(`servers:
  box: { prefix: box, domain: mail, stdio: { command: node }, probe: [{ tool: whoami }] }
`);
    assert.match(r.problems.map((p) => p.message).join('\n'), /never probed/);
  });

  it('upstreamEra is an era of a stdio link: an http upstream with another one is refused, an unknown value too', () => {
    const r = check(`servers:
  a: { prefix: a, domain: pub, upstreamEra: match, http: { url: "http://127.0.0.1:1/mcp" } }
  b: { prefix: b, domain: pub, upstreamEra: match, stdio: { command: node } }
`);
    const msgs = r.problems.map((p) => `${p.path} ${p.message}`).join('\n');
    assert.match(msgs, /servers\.a\.upstreamEra applies to stdio upstreams only/);
    assert.doesNotMatch(msgs, /servers\.b\./);
    const bad = check(`servers:
  c: { prefix: c, domain: pub, upstreamEra: newest, stdio: { command: node } }
`);
    assert.match(
      bad.problems.map((p) => `${p.path} ${p.message}`).join('\n'),
      /servers\.c\.upstreamEra .*"auto"\|"legacy"\|"modern"\|"match"/,
    );
  });

  it('the committed JSON Schema is the one generated from the zod schema', () => {
    const committed = JSON.parse(readFileSync(new URL('../../policies/policy.schema.json', import.meta.url), 'utf8'));
    assert.deepEqual(committed, JSON.parse(JSON.stringify(policyJsonSchema())));
  });
});
