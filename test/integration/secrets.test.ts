import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EVERYTHING, FIXTURE, policyHead, ROOT, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { modernMeta, modernPost, textOf } from '../helpers/mcp.js';

const LEAKY = path.join(ROOT, 'test/fixtures/servers/leaky.mjs');
// Credential-shaped values, assembled at run time so no scanner of this repository mistakes them for real ones.
const GITHUB = ['ghp', 'Q7mZ2vK9pL4xT8wR1nB6cY3hJ5dF0gS2aE7u'].join('_');
const VAULT_TOKEN = 'vlt-7Hq2Zx9LmP4wK8rT3nB6';
const MAILBOX_TOKEN = 'mbx-Jd83KqLz0Pw5Rt7Vn2Xc';
const PRIVATE_KEY = [
  `-----BEGIN OPENSSH ${'PRIVATE'} KEY-----`,
  'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW',
  'QyNTUxOQAAACBGg2T0LcJ4Hn3lq3y1Q8n0m5Zk7aR2eXo9sVbW4tYpUwAAAJgAAAAAAAAA',
  `-----END OPENSSH ${'PRIVATE'} KEY-----`,
].join('\n');
const AKIA = ['AK', 'IAZ3MPLQ4RT6VW7XY2'].join('');
const AWS_SECRET = ['Jx9vQ2mN7pL4kR8sT1wY', '5zB3cF6hD0gA2eK9uI7o'].join('');

const POLICY = `${policyHead()}
trustDomains:
  public: { kind: shared }
  vault: { kind: shared, secrets: { VAULT_TOKEN: { file: ./secrets/vault.token } } }
  alice-mail: { kind: principal, secrets: { MAILBOX_TOKEN: { file: "./secrets/mailbox-{lane}.token" } } }
servers:
  everything: { prefix: every, domain: public, stdio: { command: node, args: ["${EVERYTHING}", "stdio"] } }
  leak: { prefix: leak, domain: public, stdio: { command: node, args: ["${LEAKY}"] } }
  loose: { prefix: loose, domain: public, stdio: { command: node, args: ["${LEAKY}"] }, secrets: log }
  scrub: { prefix: scrub, domain: public, stdio: { command: node, args: ["${LEAKY}"] }, secrets: { answers: redact } }
  vault: { prefix: vault, domain: vault, stdio: { command: node, args: ["${LEAKY}", "--env-var", "VAULT_TOKEN"] }, secrets: log }
  mail: { prefix: mail, domain: alice-mail, stdio: { command: node, args: ["${LEAKY}", "--env-var", "MAILBOX_TOKEN"] } }
  fix: { prefix: fix, domain: public, stdio: { command: node, args: ["${FIXTURE}"] } }
lanes:
  a: { servers: [everything, leak, loose, scrub, vault, fix] }
  alice: { servers: [mail] }
`;

type Answer = {
  text: string;
  raw: string;
  error?: { code: number; message: string; data?: Record<string, unknown> };
  result?: Record<string, unknown>;
};

describe('secrets on the data path (layer three)', () => {
  let gw: RunningGateway;
  let a: string;
  let alice: string;
  let id = 0;
  const rpc = async (token: string, method: string, params: Record<string, unknown>): Promise<Answer> => {
    id += 1;
    const r = await modernPost(gw.url, token, id, method, params);
    const json = r.json ?? {};
    const result = json.result as Record<string, unknown> | undefined;
    return {
      raw: JSON.stringify(json),
      text: result ? textOf(result) : '',
      ...(json.error ? { error: json.error as Answer['error'] } : {}),
      ...(result ? { result } : {}),
    };
  };
  const call = (token: string, name: string, args: Record<string, unknown>) => rpc(token, 'tools/call', { name, arguments: args });

  before(async () => {
    gw = await startGateway(POLICY, {
      secrets: { 'secrets/vault.token': `${VAULT_TOKEN}\n`, 'secrets/mailbox-alice.token': `${MAILBOX_TOKEN}\n` },
    });
    a = await gw.token('a');
    alice = await gw.token('alice');
  });
  after(async () => {
    await gw?.stop();
  });

  it('honest calls pass both ways', async () => {
    const echo = await call(a, 'every_echo', { message: 'hello from lane a, build 7f3a9c2, 42 apples' });
    assert.equal(echo.error, undefined, echo.raw);
    assert.match(echo.text, /hello from lane a/);
    const plain = await call(a, 'leak_sample', { kind: 'plain' });
    assert.equal(plain.error, undefined, plain.raw);
    assert.match(plain.text, /nothing to see here/);
  });

  it('a lane sending a private key to any upstream is refused, naming the rule and the argument path, never the value', async () => {
    for (const [tool, args, at] of [
      ['every_echo', { message: `please keep this\n${PRIVATE_KEY}` }, 'arguments.message'],
      ['leak_echo', { text: PRIVATE_KEY }, 'arguments.text'],
    ] as const) {
      const r = await call(a, tool, args);
      assert.equal(r.error?.code, -32030, r.raw);
      assert.match(r.error?.message ?? '', /private_key/);
      assert.ok(r.error?.message.includes(at), r.error?.message);
      assert.ok(!r.raw.includes('b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ'), 'the key never comes back');
    }
    // An upstream whose policy says `log` receives it (and the event is logged and counted).
    const logged = await call(a, 'loose_echo', { text: PRIVATE_KEY });
    assert.equal(logged.error, undefined, 'secrets: log passes the request');
  });

  it('an AWS key pair in a request is refused with both rules named', async () => {
    const r = await call(a, 'every_echo', { message: `aws_access_key_id=${AKIA}\naws_secret_access_key=${AWS_SECRET}` });
    assert.equal(r.error?.code, -32030, r.raw);
    assert.match(r.error?.message ?? '', /aws_access_key_id/);
    assert.match(r.error?.message ?? '', /aws_secret_access_key|env_secret/);
    assert.ok(!r.raw.includes(AKIA) && !r.raw.includes(AWS_SECRET));
    const nested = await call(a, 'leak_echo', { text: 'x', config: { aws: { access_key_id: AKIA, secret_access_key: AWS_SECRET } } });
    assert.equal(nested.error?.code, -32030);
    assert.ok(nested.error?.message.includes('arguments.config.aws.access_key_id'), nested.error?.message);
  });

  it("a lane's answer to an upstream's sampling request never carries a secret up to it", async () => {
    const caps = { ...modernMeta, 'io.modelcontextprotocol/clientCapabilities': { sampling: {} } };
    id += 1;
    const first = await modernPost(gw.url, a, id, 'tools/call', { name: 'fix_ask', arguments: {}, _meta: caps });
    const r1 = first.json?.result as { resultType: string; inputRequests: Record<string, { method: string }>; requestState: string };
    assert.equal(r1.resultType, 'input_required', JSON.stringify(first.json));
    const [key] = Object.keys(r1.inputRequests);
    const answer = { role: 'assistant', model: 'm', content: { type: 'text', text: `sure, here it is: ${PRIVATE_KEY}` } };
    const done = await rpc(a, 'tools/call', {
      name: 'fix_ask',
      arguments: {},
      requestState: r1.requestState,
      inputResponses: { [String(key)]: answer },
      _meta: caps,
    });
    // The host refused the lane's answer on its way up: the child was told why (and its tool says so), never the key.
    assert.ok(!done.raw.includes('b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ'), done.raw);
    assert.match(done.text, /refused by lanegate: the request holds a secret \(private_key at content\.text\)/, done.raw);
  });

  it('an upstream answering with a GitHub token or a JWT is withheld (block)', async () => {
    for (const [kind, rule] of [
      ['github', 'github_token'],
      ['jwt', 'jwt'],
      ['structured', 'github_token'],
    ] as const) {
      const r = await call(a, 'leak_sample', { kind });
      assert.equal(r.error?.code, -32030, r.raw);
      assert.match(r.error?.message ?? '', new RegExp(rule));
      assert.ok(
        !r.raw.includes(GITHUB) && !r.raw.includes('eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9'),
        `${kind}: the text never reaches the lane`,
      );
    }
    assert.ok((await call(a, 'leak_sample', { kind: 'structured' })).error?.message.includes('result.structuredContent.deploy.value'));
    // An upstream's error message is its text too.
    const failed = await call(a, 'leak_sample', { kind: 'error' });
    assert.equal(failed.error?.code, -32030, failed.raw);
    assert.ok(failed.error?.message.includes('github_token at error.message') && !failed.raw.includes(GITHUB), failed.raw);
    const scrubbed = await call(a, 'scrub_sample', { kind: 'error' });
    assert.equal(scrubbed.error?.code, -32603, scrubbed.raw);
    assert.ok(scrubbed.error?.message.includes('[secret redacted: github_token]') && !scrubbed.raw.includes(GITHUB), scrubbed.raw);
    const prompt = await rpc(a, 'prompts/get', { name: 'leak_sample', arguments: { kind: 'github' } });
    assert.equal(prompt.error?.code, -32030, prompt.raw);
    const read = await rpc(a, 'resources/read', { uri: 'leak+sample://jwt' });
    assert.equal(read.error?.code, -32030, read.raw);
    assert.ok(read.error?.message.includes('result.contents[0].text'), read.error?.message);
    assert.ok(!read.raw.includes('eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9'), read.raw);
  });

  it("a child's progress message to a lane is scanned too: withheld under block, redacted under redact", async () => {
    for (const [tool, expect] of [
      ['leak_sample', /step 2 of 2/],
      ['scrub_sample', /step 1 with \[secret redacted: github_token\]/],
    ] as const) {
      id += 1;
      const res = await fetch(gw.url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${a}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': tool,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: tool, arguments: { kind: 'progress' }, _meta: { ...modernMeta, progressToken: `p${id}` } },
        }),
      });
      const text = await res.text();
      assert.match(text, expect);
      assert.match(text, /nothing to see here/, 'the call itself is answered');
      assert.ok(!text.includes(GITHUB), text);
    }
  });

  it('redact cuts the secret out and says so; log lets it through', async () => {
    const r = await call(a, 'scrub_sample', { kind: 'github' });
    assert.equal(r.error, undefined, r.raw);
    assert.ok(!r.raw.includes(GITHUB), 'redacted');
    assert.match(r.text, /\[secret redacted: github_token\]/);
    assert.match(r.text, /lanegate redacted a secret from this answer: github_token at result\.content\[0\]\.text/);
    const loose = await call(a, 'loose_sample', { kind: 'github' });
    assert.ok(loose.text.includes(GITHUB), 'secrets: log passes the answer');
  });

  it("a host never passes its own domain's injected secret value, in any shape, whatever the policy", async () => {
    for (const kind of ['env', 'env_b64']) {
      const r = await call(a, 'vault_sample', { kind });
      assert.equal(r.error?.code, -32030, r.raw);
      assert.match(r.error?.message ?? '', /injected_secret/);
      assert.ok(!r.raw.includes(VAULT_TOKEN) && !r.raw.includes(Buffer.from(`v=${VAULT_TOKEN};`).toString('base64').slice(4, 24)));
    }
    // A lane that somehow holds the value cannot send it upstream either.
    const up = await call(a, 'vault_echo', { text: `token ${VAULT_TOKEN}` });
    assert.equal(up.error?.code, -32030, up.raw);
  });

  it("a principal domain's answers are redacted by default: the lane's mailbox token never reaches it", async () => {
    const r = await call(alice, 'mail_sample', { kind: 'env' });
    assert.equal(r.error, undefined, r.raw);
    assert.ok(!r.raw.includes(MAILBOX_TOKEN), r.raw);
    assert.match(r.text, /\[secret redacted: injected_secret\]/);
  });

  it('every event is counted by server, direction, rule and action, and no log line holds a value', async () => {
    const metrics = await (
      await fetch(gw.url.replace(/\/mcp$/, '/metrics'), { headers: { authorization: `Bearer ${gw.operatorToken}` } })
    ).text();
    for (const line of [
      'lanegate_secret_blocks_total{server="everything",direction="arguments",rule="private_key",action="blocked"}',
      'lanegate_secret_blocks_total{server="leak",direction="answers",rule="jwt",action="blocked"}',
      'lanegate_secret_blocks_total{server="scrub",direction="answers",rule="github_token",action="redacted"}',
      'lanegate_secret_blocks_total{server="loose",direction="answers",rule="github_token",action="logged"}',
      'lanegate_secret_blocks_total{server="vault",direction="answers",rule="injected_secret",action="blocked"}',
    ])
      assert.ok(
        metrics.includes(line),
        `${line}\n${metrics
          .split('\n')
          .filter((l) => l.includes('secret'))
          .join('\n')}`,
      );
    const logs = gw.stderr();
    assert.match(logs, /secret_blocked/);
    for (const v of [GITHUB, VAULT_TOKEN, MAILBOX_TOKEN, AKIA, AWS_SECRET, 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ'])
      assert.ok(!logs.includes(v), 'no secret value in any log line');
  });
});
