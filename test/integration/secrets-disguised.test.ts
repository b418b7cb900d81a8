import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EVERYTHING, policyHead, ROOT, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { modernPost, textOf } from '../helpers/mcp.js';

// Attack round 8, finding 11, through the real gateway: a GitHub token disguised by a zero-width
// space, a soft hyphen or a full-width prefix passed both ways. Assembled at run time so no scanner
// of this repository mistakes it for a real one.
const LEAKY = path.join(ROOT, 'test/fixtures/servers/leaky.mjs');
const GITHUB = ['ghp', 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'].join('_');
const TAIL = GITHUB.slice(10);
const DISGUISED: Record<string, string> = {
  'zero-width space': `${GITHUB.slice(0, 10)}\u200b${GITHUB.slice(10)}`,
  'soft hyphen': `${GITHUB.slice(0, 10)}\u00ad${GITHUB.slice(10)}`,
  'full-width prefix': `ｇｈｐ＿${GITHUB.slice(4)}`,
  'BOM inside the prefix': `gh\ufeffp_${GITHUB.slice(4)}`,
};

const POLICY = `${policyHead()}
trustDomains:
  public: { kind: shared }
servers:
  everything: { prefix: every, domain: public, stdio: { command: node, args: ["${EVERYTHING}", "stdio"] } }
  back: { prefix: back, domain: public, stdio: { command: node, args: ["${LEAKY}"] }, secrets: { arguments: log } }
  scrub: { prefix: scrub, domain: public, stdio: { command: node, args: ["${LEAKY}"] }, secrets: { arguments: log, answers: redact } }
lanes:
  a: { servers: [everything, back, scrub] }
`;

describe('a disguised credential on the data path (attack round 8, finding 11)', () => {
  let gw: RunningGateway;
  let a: string;
  let id = 0;
  const call = async (name: string, args: Record<string, unknown>) => {
    id += 1;
    const r = await modernPost(gw.url, a, id, 'tools/call', { name, arguments: args });
    const json = r.json ?? {};
    const result = json.result as Record<string, unknown> | undefined;
    return {
      raw: JSON.stringify(json),
      text: result ? textOf(result) : '',
      error: json.error as { code: number; message: string } | undefined,
    };
  };

  before(async () => {
    gw = await startGateway(POLICY);
    a = await gw.token('a');
  });
  after(async () => {
    await gw?.stop();
  });

  it('honest text with full-width and hidden characters passes both ways', async () => {
    const message = '東京、気温は２５度。ＡＰＩキーの説明\u200bです 👨\u200d👩\u200d👧';
    const r = await call('every_echo', { message });
    assert.equal(r.error, undefined, r.raw);
    assert.ok(r.text.includes(message), r.raw);
  });

  for (const [name, token] of Object.entries(DISGUISED)) {
    it(`a token with a ${name} in a lane's arguments is refused, naming the rule, never the value`, async () => {
      const r = await call('every_echo', { message: `use ${token} please` });
      assert.equal(r.error?.code, -32030, r.raw);
      assert.match(r.error?.message ?? '', /github_token at arguments\.message/);
      assert.ok(!r.raw.includes(TAIL), 'the token never comes back');
    });

    it(`a token with a ${name} in an upstream's answer is withheld (block) or cut out whole (redact)`, async () => {
      const text = `the key is ${token} (keep it safe)`;
      const blocked = await call('back_echo', { text });
      assert.equal(blocked.error?.code, -32030, blocked.raw);
      assert.match(blocked.error?.message ?? '', /github_token at result\.content\[0\]\.text/);
      assert.ok(!blocked.raw.includes(TAIL), blocked.raw);
      const scrubbed = await call('scrub_echo', { text });
      assert.equal(scrubbed.error, undefined, scrubbed.raw);
      assert.ok(scrubbed.text.startsWith('the key is [secret redacted: github_token] (keep it safe)'), scrubbed.raw);
      assert.ok(!scrubbed.raw.includes(TAIL) && !scrubbed.raw.includes('ｇｈｐ'), scrubbed.raw);
    });
  }
});
