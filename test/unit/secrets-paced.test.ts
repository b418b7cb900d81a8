import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SecretDetector, WALK_STEP } from '../../src/guard/secrets/detector.js';
import { PACED_CHARS } from '../../src/guard/secrets/text.js';
import type { HostOut } from '../../src/link/protocol.js';
import type { Log } from '../../src/log/lite.js';
import type { ServerConfig } from '../../src/policy/model.js';
import { ERR, RpcFailure } from '../../src/rpc/jsonrpc.js';
import { SecretGate } from '../../src/host/secret-gate.js';

// Credential-shaped values, assembled at run time so no scanner of this repository mistakes them for real ones.
const GITHUB = ['ghp', 'Q7mZ2vK9pL4xT8wR1nB6cY3hJ5dF0gS2aE7u'].join('_');
const AWS = ['AKIA', 'Z3MPLQ4RT6VW7XY2'].join('');
const INJECTED = 'vlt-7Hq2Zx9LmP4wK8rT3nB6';
const pad = (n: number): string => 'lorem ipsum dolor '.repeat(Math.ceil(n / 18)).slice(0, n);

const counting = () => {
  let pauses = 0;
  const pause = async (): Promise<void> => {
    pauses += 1;
  };
  return { pause, pauses: () => pauses };
};
const quiet = { notify: () => {}, request: async () => ({}) } as unknown as HostOut;
const noLog: Log = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
const server = { name: 'docs', prefix: 'docs', domain: 'public' } as ServerConfig;

describe('secret scanning of large values, a rule at a time (issue 19)', () => {
  const d = new SecretDetector([INJECTED]);
  const long = `${pad(PACED_CHARS)} key ${GITHUB} and ${pad(200_000)} ${AWS} then ${INJECTED} ${pad(1000)}`;
  const value = {
    content: [
      { type: 'text', text: long },
      { type: 'text', text: `short ${GITHUB}` },
    ],
    token: 'x',
  };

  it('finds exactly what the one-pass scan finds, pausing between the passes of a long string', async () => {
    const c = counting();
    const paced = d.scanPaced(value, 'result', undefined, c.pause);
    assert.ok(paced instanceof Promise, 'a value with a long string is scanned asynchronously');
    const found = await paced;
    const whole = d.scan(value, 'result');
    const key = (f: { rule: string; path: string }): string => `${f.rule} ${f.path}`;
    assert.deepEqual(found.map(key).sort(), whole.map(key).sort());
    assert.ok(found.some((f) => f.rule === 'github_token' && f.path === 'result.content[0].text'));
    assert.ok(found.some((f) => f.rule === 'aws_access_key_id' && f.path === 'result.content[0].text'));
    assert.ok(found.some((f) => f.rule === 'injected_secret' && f.path === 'result.content[0].text'));
    assert.ok(found.some((f) => f.rule === 'github_token' && f.path === 'result.content[1].text'));
    assert.ok(c.pauses() >= 3, `paused ${c.pauses()} times`);
  });

  it('is synchronous, and pauses never, on values without a long string', () => {
    const c = counting();
    const r = d.scanPaced({ text: `short ${GITHUB}`, n: 3 }, 'result', undefined, c.pause);
    assert.ok(Array.isArray(r));
    assert.equal(r.length, 1);
    assert.equal(c.pauses(), 0);
  });

  it('walks a body of many small values a step at a time: the same findings in the same order, paused between steps', async () => {
    // 100,000 short strings (no long one), a secret among them, secrets in keys and objects further on.
    const many = Array.from({ length: 100_000 }, (_, i) => (i === 70_000 ? `near the end ${GITHUB}` : 'a'));
    const body = { pad: many, nested: [{ note: `${AWS}` }, { [`k ${GITHUB}`]: 1 }], n: Array(50_000).fill(7), text: `short ${GITHUB}` };
    const c = counting();
    const paced = d.scanPaced(body, 'arguments', undefined, c.pause);
    assert.ok(paced instanceof Promise, 'a value of more than WALK_STEP values is walked asynchronously');
    const found = await paced;
    assert.deepEqual(found, d.scan(body, 'arguments'), 'the same findings, in the same order, as the one-step walk');
    assert.ok(found.some((f) => f.rule === 'github_token' && f.path === 'arguments.pad[70000]'));
    assert.ok(found.some((f) => f.rule === 'aws_access_key_id' && f.path === 'arguments.nested[0].note'));
    assert.ok(found.some((f) => f.path === 'arguments.nested[1][<key holding a secret>]'));
    assert.ok(found.some((f) => f.rule === 'github_token' && f.path === 'arguments.text'));
    assert.ok(c.pauses() >= Math.floor(100_000 / WALK_STEP), `paused ${c.pauses()} times`);
  });

  it('walks an object of many members a few thousand at a time: a secret in a key or by its name past the first visit is found', async () => {
    const wide: Record<string, unknown> = {};
    for (let i = 0; i < 30_000; i += 1) wide[`k${i}`] = i === 25_000 ? `late ${GITHUB}` : 'v';
    wide[`key ${GITHUB}`] = 1;
    wide.api_key = 'Zq8rT2vL9xW4mN7pK3sD';
    const c = counting();
    const found = await d.scanPaced({ wide }, 'result', undefined, c.pause);
    assert.deepEqual(found, d.scan({ wide }, 'result'));
    assert.ok(found.some((f) => f.rule === 'github_token' && f.path === 'result.wide.k25000'));
    assert.ok(found.some((f) => f.path === 'result.wide[<key holding a secret>]'));
    assert.ok(found.some((f) => f.rule === 'generic_secret' && f.path === 'result.wide.api_key'));
    assert.ok(c.pauses() >= 1, `paused ${c.pauses()} times`);
  });

  it('numbers, booleans and nulls are not walked: a million of them are judged at once, and clean', () => {
    const c = counting();
    const r = d.scanPaced({ n: Array(1_000_000).fill(1), b: Array(1000).fill(true), z: [null] }, 'arguments', undefined, c.pause);
    assert.deepEqual(r, []);
    assert.equal(c.pauses(), 0);
  });

  it('the gate refuses a large request holding a secret (paced path), and passes a clean one', async () => {
    const gate = new SecretGate([INJECTED], quiet, noLog);
    const c = counting();
    const refused = gate.arguments(server, 'a', 'tools/call', { name: 'echo', arguments: { text: long } }, c.pause);
    assert.ok(refused instanceof Promise);
    await assert.rejects(
      refused,
      (e: unknown) => e instanceof RpcFailure && e.rpc.code === ERR.secretRefused && /github_token/.test(e.rpc.message),
    );
    assert.equal(
      await gate.arguments(server, 'a', 'tools/call', { name: 'echo', arguments: { text: pad(PACED_CHARS * 2) } }, c.pause),
      undefined,
    );
    assert.equal(gate.arguments(server, 'a', 'tools/call', { name: 'echo', arguments: { text: 'hi' } }, c.pause), undefined);
  });

  it('the gate withholds or redacts a large answer holding a secret as the one-pass gate does', async () => {
    const block = new SecretGate([], quiet, noLog);
    const answer = { content: [{ type: 'text', text: long }] };
    await assert.rejects(
      Promise.resolve(block.answer(server, 'a', 'tools/call', answer, async () => {})),
      (e: unknown) => e instanceof RpcFailure && e.rpc.code === ERR.secretRefused,
    );
    const redacting = { ...server, secrets: { arguments: 'block', answers: 'redact', ignore: [] } } as ServerConfig;
    const out = (await new SecretGate([], quiet, noLog).answer(redacting, 'a', 'tools/call', answer, async () => {})) as {
      content: { text: string }[];
    };
    const text = out.content[0]?.text ?? '';
    assert.ok(!text.includes(GITHUB) && !text.includes(AWS), 'the secrets are cut out');
    assert.match(text, /\[secret redacted: github_token\]/);
    assert.ok(text.length > PACED_CHARS, 'the rest of the answer is kept');
  });
});
