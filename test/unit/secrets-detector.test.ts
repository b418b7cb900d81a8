import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { SecretDetector } from '../../src/guard/secrets/detector.js';
import { shapesOf } from '../../src/guard/secrets/injected.js';
import { SECRET_RULE_IDS } from '../../src/guard/secrets/rule-ids.js';
import { RULES } from '../../src/guard/secrets/rules.js';
import { ANY_KEYWORD } from '../../src/guard/secrets/text.js';
import { validatePolicyText } from '../../src/policy/load.js';

// Credential-shaped values, assembled at run time so no scanner of this repository mistakes them for real ones.
const j = (...parts: string[]): string => parts.join('');
const b64url = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64url');
const JWT = `${b64url({ alg: 'RS256', typ: 'JWT' })}.${b64url({ sub: 'u1', exp: 1767225600 })}.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk`;
const SAMPLES: Record<(typeof SECRET_RULE_IDS)[number], string> = {
  private_key: j('-----BEGIN RSA ', 'PRIVATE KEY-----\nMIIEowIBAAKCAQEA1c7+9z5Pad7OejecsQ0bu3aumXk\n-----END RSA ', 'PRIVATE KEY-----'),
  aws_access_key_id: j('AKIA', 'Z3MPLQ4RT6VW7XY2'),
  aws_secret_access_key: j('aws_secret_access_key = ', 'Jx9vQ2mN7pL4kR8sT1wY5zB3cF6hD0gA2eK9uI7o'),
  gcp_service_account: '{"type": "service_account", "project_id": "demo-123", "private_key_id": "3f1c"}',
  gcp_api_key: j('AIza', 'SyD3x8Kq0LmP4wR7tZ2vB9nC6hJ1fG5sE3k'),
  azure_storage_key: j(
    'DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=',
    'q8Zt3Lw9Kp2Vx7Rn4Bm6Hc1Jf5Dg0Sa3Ye8Uo2Ti7Wr9Qz4Xl6Nv1Mb5Kj3Ph0Gd8Fc2Ea7Sy9Rw4Tq6Un1Vo==;',
  ),
  azure_client_secret: j('client secret: ', 'abc8Q~', 'Zt3Lw9Kp2Vx7Rn4Bm6Hc1Jf5Dg0Sa3Ye8U'),
  github_token: j('ghp', '_Q7mZ2vK9pL4xT8wR1nB6cY3hJ5dF0gS2aE7u'),
  gitlab_token: j('glpat', '-aB3dE5fG7hJ9kL1mN3pQ'),
  slack_token: j('xoxb', '-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx'),
  stripe_key: j('sk_', 'live_4eC39HqLyjWDarjtT1zdp7dc'),
  anthropic_key: j('sk-', 'ant-api03-aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5bC7dE9fG1h'),
  openai_key: j('sk-', 'proj-aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5bC7dE9fG1h'),
  jwt: `Authorization header was ${JWT} yesterday`,
  env_secret: 'LOG_LEVEL=debug\nSTRIPE_WEBHOOK_SECRET=whk9fj3Kd82nZq0Lp\nPORT=8080',
  generic_secret: 'config: { api_key: "a8F3kL92mQzX7vB1nR4t" }',
};

describe('secret rules', () => {
  const d = new SecretDetector();
  it('the rule table and the ids the policy schema accepts are the same list', () => {
    assert.deepEqual(
      RULES.map((r) => r.id),
      [...SECRET_RULE_IDS],
    );
  });
  it("the one-test prefilter for short strings covers every rule's keywords (it may only skip what no rule can match)", () => {
    for (const rule of RULES)
      for (const k of [...(rule.keywords ?? []), ...(rule.lowerKeywords ?? [])]) assert.ok(ANY_KEYWORD.test(k), `${rule.id}: ${k}`);
  });
  for (const id of SECRET_RULE_IDS) {
    it(`${id}: found, with its path, never its value`, () => {
      const findings = d.scan({ args: { note: SAMPLES[id] } }, 'arguments');
      assert.ok(
        findings.some((f) => f.rule === id && f.path === 'arguments.args.note'),
        JSON.stringify(findings),
      );
      assert.ok(!JSON.stringify(findings).includes(SAMPLES[id].slice(10, 30)));
      const redacted = JSON.stringify(d.redact({ note: SAMPLES[id] }));
      assert.match(redacted, /\[secret redacted: /);
    });
  }
  it('a credential glued to the character before it is found (attack round 12), but a JWT and a bare sk- key only at a boundary', () => {
    const glued = [
      'github_token',
      'aws_access_key_id',
      'gcp_api_key',
      'gitlab_token',
      'slack_token',
      'stripe_key',
      'anthropic_key',
      'openai_key',
    ] as const;
    for (const id of glued)
      for (const before of ['x', '1', '_', '-', 'MY_TOKEN_', '%3A', '\\n'])
        assert.ok(
          d.scan({ note: `${before}${SAMPLES[id]}` }, 'arguments').some((f) => f.rule === id),
          `${id} after ${JSON.stringify(before)}`,
        );
    // Without a boundary a JWT's unbounded pattern would re-read a run at each `eyJ` in it; glued after a letter, it is not found.
    assert.deepEqual(d.scan({ note: `x${JWT}` }, 'x'), []);
    const bare = j('sk-', 'aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5bC7d');
    assert.ok(d.scan({ note: `_${bare}` }, 'x').some((f) => f.rule === 'openai_key'));
    // After a letter a bare `sk-` is a word's end (`task-`, `desk-`): lanegate's own task ids are no secret.
    for (const honest of ['every_task-3f1c9a7be2d44c0a9b8e7f6a5d4c3b2a', `desk-${bare.slice(3)}`, 'EURASIAXKQWERTYZMNBVC23 ok'])
      assert.deepEqual(d.scan({ honest }, 'x'), [], honest);
  });

  it("a `+` for a space after a credential's name is read as the space (attack round 13)", () => {
    for (const text of ['Authorization: Bearer+a8F3kL92mQzX7vB1nR4t', 'password+%3D+Xk29fLq83ZpR0mWt', 'api_key+=+a8F3kL92mQzX7vB1nR4t'])
      assert.ok(
        d.scan({ text }, 'x').some((f) => f.rule === 'generic_secret'),
        text,
      );
  });

  it('the published examples and placeholders are not secrets', () => {
    for (const text of [
      'AKIAIOSFODNN7EXAMPLE',
      'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      j('ghp', '_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'),
      'api_key: <token>',
      `API_KEY=\${API_KEY}`,
      'password: your_password_here_123',
      'GITHUB_TOKEN=changeme-0000000000',
      'Authorization: Bearer <your token here>',
    ])
      assert.deepEqual(d.scan(text, 'x'), [], text);
  });
  it('honest text that talks about secrets is not one', () => {
    for (const value of [
      { max_tokens: 4096, token_count: 12, secret_name: 'prod-db', key_id: 'k-123', password_hint: 'your pet' },
      { text: 'Rotate the API key every 90 days; the token endpoint is https://auth.example.org/token?x=1' },
      {
        sha: 'a94a8fe5ccb19ba61c4c0873d391e987982fbbd3',
        uuid: 'c3a1f9e2-4b7d-4e8a-9f1c-2d3e4f5a6b7c',
        b64: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
      },
      { nextCursor: 'eyJwYWdlIjoyfQ', pageToken: 'CAEQAhoGCgR0ZXN0Ig', progressToken: 'p-7Hq2Zx9LmP4wK8rT3nB6' },
      'PATH=/usr/local/bin:/usr/bin\nHOME=/home/lane\nNODE_ENV=production',
    ])
      assert.deepEqual(d.scan(value, 'x'), [], JSON.stringify(value));
  });
  it('each spelling a pattern allows is found in a short string (the keywords that let a rule run cover its pattern)', () => {
    const secret = 'Jx9vQ2mN7pL4kR8sT1wY5zB3cF6hD0gA2eK9uI7o';
    for (const name of ['secret_access_key', 'secret-access_key', 'SecretAccessKey', 'aws-secret', 'AWSSECRET'])
      assert.ok(
        d.scan(`${name}=${secret}`, 'x').some((f) => f.rule === 'aws_secret_access_key'),
        name,
      );
  });
  it('a value next to a credential name in JSON is found by the name (the JSON form of api_key: …)', () => {
    assert.deepEqual(d.scan({ db: { password: 'Xk29fLq83ZpR0mWt' } }, 'arguments'), [
      { rule: 'generic_secret', path: 'arguments.db.password' },
    ]);
    assert.deepEqual(d.scan({ secretAccessKey: 'Jx9vQ2mN7pL4kR8sT1wY5zB3cF6hD0gA2eK9uI7o' }, 'r'), [
      { rule: 'aws_secret_access_key', path: 'r.secretAccessKey' },
    ]);
  });
  it('a GCP service-account key as an object is one finding; redaction removes the whole object', () => {
    const sa = { type: 'service_account', project_id: 'p', private_key_id: '3f1c', client_email: 'x@p.iam.gserviceaccount.com' };
    assert.deepEqual(d.scan({ creds: sa }, 'arguments'), [{ rule: 'gcp_service_account', path: 'arguments.creds' }]);
    assert.deepEqual(d.redact({ creds: sa }), { creds: '[secret redacted: gcp_service_account]' });
  });
  it('a key that holds a secret is never written into a path', () => {
    const key = SAMPLES.github_token;
    const findings = d.scan({ [key]: 'x', 'odd key\n': SAMPLES.jwt }, 'result');
    assert.ok(!JSON.stringify(findings).includes(key));
    assert.ok(findings.some((f) => f.path === 'result[<key holding a secret>]'));
    assert.ok(
      findings.some((f) => f.path === 'result["odd key\\n"]' && f.rule === 'jwt'),
      JSON.stringify(findings),
    );
  });
  it('redaction keeps the rest of the text and the structure', () => {
    const r = d.redact({ content: [{ type: 'text', text: `before ${SAMPLES.github_token} after` }], n: 3 });
    assert.deepEqual(r, { content: [{ type: 'text', text: 'before [secret redacted: github_token] after' }], n: 3 });
    const pk = d.redact(`a\n${SAMPLES.private_key}\nb`);
    assert.equal(pk, 'a\n[secret redacted: private_key]\nb');
  });
  it('a string holding more secrets than the scan keeps count of is redacted whole (never partly)', () => {
    const many = Array.from({ length: 300 }, (_, i) => `${SAMPLES.github_token.slice(0, -3)}${String(i).padStart(3, '0')}`).join(' ');
    const r = d.redact({ text: many }) as { text: string };
    assert.ok(!/gh[p]_[A-Za-z0-9]{36}/.test(r.text), r.text.slice(0, 200));
    assert.match(r.text, /^\[secret redacted: github_token and 255\+ more\]$/);
  });
  it('a server policy can turn a rule off (but not injected values)', () => {
    const ignore = new Set(['jwt']);
    assert.deepEqual(d.scan(SAMPLES.jwt, 'x', ignore), []);
    const inj = new SecretDetector(['vlt-7Hq2Zx9LmP4wK8rT3nB6']);
    assert.equal(inj.scan('vlt-7Hq2Zx9LmP4wK8rT3nB6', 'x', new Set(['injected_secret', 'generic_secret']))[0]?.rule, 'injected_secret');
  });
});

describe('injected secret values, whatever their shape', () => {
  const value = 'vlt-7Hq2"Zx9/LmP+4wK8rT3nB6';
  const d = new SecretDetector([value, 'short']);
  const shapes: Record<string, string> = {
    raw: `token ${value} end`,
    'JSON-escaped': `{"t":${JSON.stringify(value)}}`,
    'URL-encoded': `https://x.example/?t=${encodeURIComponent(value)}`,
    hex: `0x${Buffer.from(value).toString('hex')}`,
  };
  for (const k of [0, 1, 2]) {
    const prefixed = Buffer.concat([Buffer.from('abc'.slice(0, k)), Buffer.from(value), Buffer.from(';tail')]);
    shapes[`base64 at offset ${k}`] = `blob ${prefixed.toString('base64')}`;
    shapes[`base64url at offset ${k}`] = `blob ${prefixed.toString('base64url')}`;
  }
  for (const [shape, text] of Object.entries(shapes))
    it(`found ${shape}`, () => assert.ok(d.scan({ text }, 'result').some((f) => f.rule === 'injected_secret' && f.path === 'result.text')));
  it('redaction removes every shape found', () => {
    for (const text of Object.values(shapes)) assert.ok(!JSON.stringify(d.redact(text)).includes(value));
  });
  it('values too short to tell from honest text are not looked for', () => {
    assert.deepEqual(d.scan('a short answer', 'x'), []);
    assert.deepEqual(d.scan(Buffer.from('short').toString('hex'), 'x'), []);
    assert.ok(shapesOf('vlt-7Hq2Zx9').length >= 4, 'a long enough value has its shapes');
  });
});

describe('linear time on adversarial input', () => {
  const MB = 1 << 20;
  const rep = (s: string): string => s.repeat(Math.ceil(MB / s.length)).slice(0, MB);
  const d = new SecretDetector(['vlt-7Hq2Zx9LmP4wK8rT3nB6']);
  const inputs: Record<string, string> = {
    'eyJ…': rep('eyJ'),
    'eyJa.eyJa.': rep('eyJaaaaaaaaaa.'),
    'one 1 MB JWT-looking segment': `eyJ${'a'.repeat(MB)}`,
    'secret=secret=': rep('secret='),
    'token: a1a1…': `token: ${'a1'.repeat(MB / 2)}`,
    '-----BEGIN…': rep('-----BEGIN'),
    'AKIA…': rep('AKIA'),
    'xAKIA…': rep('xAKIA'),
    'ghp_ghp_…': rep('ghp_'),
    'xoxb-a…': rep('xoxb-a'),
    'sk_live_…': rep('sk_live_'),
    'sk-ant-a…': rep('sk-ant-a'),
    'AIza…': rep('AIza'),
    'glpat-…': rep('glpat-'),
    '%41%42…': rep('%41%42'),
    'gh%70_…': rep('gh%70_'),
    'A=\\n…': rep('A=\n'),
    'sk-A1A1…': `sk-${'A1'.repeat(MB / 2)}`,
    'AccountKey=AAAA…': `AccountKey=${'A'.repeat(MB)}`,
    '1Q~…': rep('1Q~'),
    'password=a1b2…': rep('password=a1b2c3d4e5f6g7h8 '),
    'vlt-7Hq2…': rep('vlt-7Hq2'),
    'name chars then secret': rep(`${'a'.repeat(60)}secret`),
  };
  for (const [name, text] of Object.entries(inputs))
    it(`1 MB of ${name} scans in well under a second of CPU`, () => {
      // CPU time, not wall time: the unit files share phase 1 of npm test with busy processes, and
      // under that load a 200 ms scan once read 1.5 s on the clock. What is bounded is the work.
      const t = process.cpuUsage();
      d.scan({ text }, 'x');
      const used = process.cpuUsage(t);
      const ms = (used.user + used.system) / 1000;
      // Measured 2-70 ms on a loaded 2-core machine; a quadratic pattern takes minutes.
      assert.ok(ms < 1500, `${ms.toFixed(0)} ms of CPU`);
    });
});

describe('servers.X.secrets in the policy', () => {
  const head = `version: 1
gateway: { listen: 127.0.0.1:9000, stateDir: /tmp/lanegate-unit-state }
commands:
  node: { path: "{node}" }
trustDomains:
  pub: { kind: shared }
  mail: { kind: principal, secrets: { TOKEN: { file: "/tmp/lanegate-unit-{lane}" } } }
`;
  const server = (domain: string, extra = '') =>
    validatePolicyText(
      `${head}servers:\n  s: { prefix: s, domain: ${domain}, ${extra} stdio: { command: node, args: ["x.js"] } }\n`,
      '/p.yaml',
      {
        checkSecrets: false,
      },
    );
  it('defaults: block requests; block answers in a shared domain, redact them in a principal one', () => {
    assert.deepEqual(server('pub').policy?.servers.s?.secrets, { arguments: 'block', answers: 'block', ignore: [] });
    assert.deepEqual(server('mail').policy?.servers.s?.secrets, { arguments: 'block', answers: 'redact', ignore: [] });
  });
  it('a word sets both directions; an object sets each', () => {
    assert.deepEqual(server('pub', 'secrets: redact,').policy?.servers.s?.secrets, { arguments: 'block', answers: 'redact', ignore: [] });
    assert.deepEqual(server('pub', 'secrets: log,').policy?.servers.s?.secrets, { arguments: 'log', answers: 'log', ignore: [] });
    assert.deepEqual(server('mail', 'secrets: { arguments: log, ignore: [jwt] },').policy?.servers.s?.secrets, {
      arguments: 'log',
      answers: 'redact',
      ignore: ['jwt'],
    });
  });
  it('refuses what it cannot mean: redacting requests, unknown rules, turning off injected values', () => {
    for (const bad of [
      'secrets: { arguments: redact },',
      'secrets: { ignore: [no_such_rule] },',
      'secrets: { ignore: [injected_secret] },',
      'secrets: allow,',
    ])
      assert.ok(server('pub', bad).problems.length > 0, bad);
  });
  it('the shipped JSON Schema knows the key', () => {
    assert.match(readFileSync(new URL('../../policies/policy.schema.json', import.meta.url), 'utf8'), /"secrets"/);
  });
});
