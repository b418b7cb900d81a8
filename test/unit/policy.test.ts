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

describe('durations: one convention (90s, 15m, 12h, 30d, 2w) in the policy as on the CLI', () => {
  const server = (extra: string) => check(`servers:\n  s: { prefix: s, domain: pub, ${extra} stdio: { command: node, args: ["x.js"] } }\n`);
  it('idle and callTimeout take durations, default 5m and 60s', () => {
    const r = server('idle: 90s, callTimeout: 2m,');
    assert.deepEqual(r.problems, []);
    assert.equal(r.policy?.servers.s?.idleMs, 90_000);
    assert.equal(r.policy?.servers.s?.callTimeoutMs, 120_000);
    const d = server('');
    assert.equal(d.policy?.servers.s?.idleMs, 300_000);
    assert.equal(d.policy?.servers.s?.callTimeoutMs, 60_000);
  });
  it('a malformed or out-of-range duration is one problem naming the convention', () => {
    const bad = server('idle: 10x,');
    assert.equal(bad.problems.length, 1);
    assert.match(bad.problems[0]?.message ?? '', /must look like 90s, 15m, 12h, 30d or 2w/);
    assert.match(server('callTimeout: 2d,').problems[0]?.message ?? '', /between 1s and 3600s/);
  });
  it('the older whole-second keys still work', () => {
    assert.equal(server('idleSeconds: 7,').policy?.servers.s?.idleMs, 7_000);
  });
});

describe('the state directory', () => {
  it('a policy that names none uses $LANEGATE_HOME when set, else ./.lanegate; one that names it keeps it', () => {
    const body = 'version: 1\ntrustDomains: { pub: { kind: shared } }\n';
    const home = validatePolicyText(body, '/policies/p.yaml', { checkSecrets: false, home: '/var/lib/lanegate' });
    assert.equal(home.policy?.gateway.stateDir, '/var/lib/lanegate');
    assert.equal(validatePolicyText(body, '/policies/p.yaml', { checkSecrets: false }).policy?.gateway.stateDir, '/policies/.lanegate');
    assert.equal(check('').policy?.gateway.stateDir, '/tmp/lanegate-unit-state');
    const named = validatePolicyText(head, '/policies/p.yaml', { checkSecrets: false, home: '/var/lib/lanegate' });
    assert.equal(named.policy?.gateway.stateDir, '/tmp/lanegate-unit-state');
  });
});

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

describe('{lane}: one expansion for launches, secret files and HTTP upstreams', () => {
  it('expands for one lane, leaves a shared value as written, and names one value per lane', async () => {
    const { expandForLanes, expandLane } = await import('../../src/policy/placeholders.js');
    assert.equal(expandLane('/s/{lane}/{lane}.key', 'a'), '/s/a/a.key');
    assert.equal(expandLane('/s/{lane}.key', undefined), '/s/{lane}.key');
    assert.equal(expandLane('/s/shared.key', 'a'), '/s/shared.key');
    assert.deepEqual(expandForLanes('/s/{lane}.key', ['a', 'b']), ['/s/a.key', '/s/b.key']);
    assert.deepEqual(expandForLanes('/s/shared.key', ['a', 'b']), ['/s/shared.key']);
    assert.deepEqual(expandForLanes('/s/{lane}.key', []), [], 'a per-lane file no lane uses names nothing');
  });
});
