import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { SecretDetector } from '../../src/guard/secrets/detector.js';
import type { HostOut } from '../../src/link/protocol.js';
import type { Log } from '../../src/log/lite.js';
import type { ServerConfig } from '../../src/policy/model.js';
import { ERR, RpcFailure } from '../../src/rpc/jsonrpc.js';
import { ChildFrames } from '../../src/host/child-frames.js';
import { ProgressTokens } from '../../src/host/progress-tokens.js';
import { ResourceRelay } from '../../src/host/resource-relay.js';
import { SecretGate } from '../../src/host/secret-gate.js';
import type { ServerSlot } from '../../src/host/slot.js';

const GITHUB = ['ghp', 'Q7mZ2vK9pL4xT8wR1nB6cY3hJ5dF0gS2aE7u'].join('_');
const INJECTED = 'vlt-7Hq2Zx9LmP4wK8rT3nB6';

const recorder = () => {
  const notes: { method: string; params: Record<string, unknown> }[] = [];
  const lines: { obj: object; msg?: string }[] = [];
  const out = {
    notify: (method: string, params: Record<string, unknown>) => notes.push({ method, params }),
    request: async () => ({}),
  } as unknown as HostOut;
  const log: Log = { debug: () => {}, info: () => {}, warn: (obj, msg) => lines.push({ obj, ...(msg ? { msg } : {}) }), error: () => {} };
  return { notes, lines, out, log };
};
const server = (secrets?: ServerConfig['secrets']): ServerConfig =>
  ({ name: 'docs', prefix: 'docs', domain: 'public', ...(secrets ? { secrets } : {}) }) as ServerConfig;
const refusal = (f: () => unknown): RpcFailure => {
  try {
    f();
  } catch (e) {
    if (e instanceof RpcFailure) return e;
    throw e;
  }
  assert.fail('not refused');
};

describe('the host secret gate', () => {
  it('refuses a request with the rule and the path, reports rule ids only, logs no value', () => {
    const r = recorder();
    const gate = new SecretGate([INJECTED], r.out, r.log);
    const e = refusal(() => gate.arguments(server(), 'a', 'tools/call', { name: 'echo', arguments: { text: `use ${GITHUB}` } }));
    assert.equal(e.rpc.code, ERR.secretRefused);
    assert.match(e.rpc.message, /github_token at arguments\.text/);
    assert.deepEqual(r.notes, [
      {
        method: 'lanegate/secret',
        params: { server: 'docs', lane: 'a', direction: 'arguments', action: 'blocked', rules: ['github_token'] },
      },
    ]);
    const all = JSON.stringify({ e: e.rpc, notes: r.notes, lines: r.lines });
    assert.ok(!all.includes(GITHUB), 'the value is in no refusal, report or log line');
  });
  it("a secret in the lane's own _meta (which goes upstream) is refused; the caller block and progress token are not read", () => {
    const r = recorder();
    const gate = new SecretGate([], r.out, r.log);
    const e = refusal(() => gate.arguments(server(), 'a', 'tools/call', { name: 'echo', arguments: {}, _meta: { note: GITHUB } }));
    assert.match(e.rpc.message, /github_token at _meta\.note/);
    gate.arguments(server(), 'a', 'tools/call', {
      name: 'echo',
      arguments: {},
      _meta: { 'lanegate/caller': { lane: 'a' }, progressToken: 'p-1' },
    });
  });
  it("a secret as the name of a request's param itself is refused, in both paths (attack round 12)", () => {
    const r = recorder();
    const gate = new SecretGate([INJECTED], r.out, r.log);
    const params = { name: 'echo', arguments: {}, [`x${GITHUB}`]: 1 };
    const e = refusal(() => gate.arguments(server(), 'a', 'tools/call', params));
    assert.match(e.rpc.message, /github_token at params\[<key holding a secret>\]/);
    assert.ok(!e.rpc.message.includes(GITHUB));
    // No long string: judged at once, so refused at once.
    assert.match(refusal(() => gate.arguments(server(), 'a', 'tools/call', params, async () => {})).rpc.message, /key holding a secret/);
    gate.arguments(server(), 'a', 'tools/call', { name: 'echo', arguments: {}, cursor: 'c-1', limit: 3 });
  });

  it('log lets a request through, but never one holding an injected value', () => {
    const r = recorder();
    const gate = new SecretGate([INJECTED], r.out, r.log);
    const loose = server({ arguments: 'log', answers: 'log', ignore: [] });
    gate.arguments(loose, 'a', 'tools/call', { arguments: { text: GITHUB } });
    assert.equal(r.notes[0]?.params.action, 'logged');
    assert.match(refusal(() => gate.arguments(loose, 'a', 'tools/call', { arguments: { t: INJECTED } })).rpc.message, /injected_secret/);
    assert.throws(() => gate.answer(loose, 'a', 'tools/call', { content: [{ type: 'text', text: INJECTED }] }), RpcFailure);
  });
  it('an injected value after many other findings still decides (log never passes it)', () => {
    const r = recorder();
    const gate = new SecretGate([INJECTED], r.out, r.log);
    const loose = server({ arguments: 'log', answers: 'log', ignore: [] });
    const content = Array.from({ length: 40 }, (_, i) => ({ type: 'text', text: `${GITHUB.slice(0, -2)}${String(i).padStart(2, '0')}` }));
    content.push({ type: 'text', text: INJECTED });
    assert.throws(() => gate.answer(loose, 'a', 'tools/call', { content }), RpcFailure);
  });
  it('redacts an answer and says so, in the content the model reads and in _meta', () => {
    const r = recorder();
    const gate = new SecretGate([], r.out, r.log);
    const judged = gate.answer(server({ arguments: 'block', answers: 'redact', ignore: [] }), 'a', 'tools/call', {
      content: [{ type: 'text', text: `token ${GITHUB}` }],
      structuredContent: { token: GITHUB },
    });
    // No long string: judged at once, not a promise.
    assert.ok(!(judged instanceof Promise));
    const out = judged as Record<string, unknown>;
    assert.ok(!JSON.stringify(out).includes(GITHUB));
    const content = out.content as { text: string }[];
    assert.equal(content[0]?.text, 'token [secret redacted: github_token]');
    assert.match(content[1]?.text ?? '', /lanegate redacted secrets from this answer/);
    assert.equal((out._meta as Record<string, { action: string }>)['lanegate/secrets']?.action, 'redacted');
  });
  it('honest answers come back as the same object (no copy on the hot path)', () => {
    const r = recorder();
    const gate = new SecretGate([INJECTED], r.out, r.log);
    const result = { content: [{ type: 'text', text: 'Echo: hello' }] };
    assert.equal(gate.answer(server(), 'a', 'tools/call', result), result);
    assert.deepEqual(r.notes, []);
  });
  it('a reloaded policy takes effect (rules turned off are read per policy, not per server name)', () => {
    const r = recorder();
    const gate = new SecretGate([], r.out, r.log);
    const answer = { content: [{ type: 'text', text: `token ${GITHUB}` }] };
    assert.equal(
      gate.answer(server({ arguments: 'block', answers: 'block', ignore: ['github_token'] }), 'a', 'tools/call', answer),
      answer,
    );
    assert.throws(() => gate.answer(server({ arguments: 'block', answers: 'block', ignore: [] }), 'a', 'tools/call', answer), RpcFailure);
  });
  it("a lane's answer to an upstream's sampling request is scanned before it goes up", async () => {
    const r = recorder();
    const gate = new SecretGate([], r.out, r.log);
    const out = {
      ...r.out,
      notify: r.out.notify,
      request: async () => ({ role: 'assistant', content: { type: 'text', text: `here: ${GITHUB}` }, model: 'm' }),
    } as unknown as HostOut;
    const frames = new ChildFrames({
      slot: () => ({ config: server() }) as unknown as ServerSlot,
      out,
      progress: new ProgressTokens(),
      resources: new ResourceRelay(() => 1000),
      log: r.log,
      secrets: gate,
      onListChanged: () => {},
      onRetreated: () => {},
    });
    const scope = { lanes: ['a'], sole: 'a', contested: false, era: 'legacy' as const, key: 'a|legacy' };
    await assert.rejects(
      frames.request('docs', scope, { jsonrpc: '2.0', id: 1, method: 'sampling/createMessage', params: {} }),
      (e: unknown) => {
        return e instanceof RpcFailure && /github_token at content\.text/.test(e.rpc.message);
      },
    );
  });
});

describe('false positives: the guard corpus', () => {
  it('no benign tool definition of the guard corpus (descriptions, schemas, examples, defaults) holds a secret', () => {
    const d = new SecretDetector();
    let rows = 0;
    const hits: string[] = [];
    for (const file of ['corpus.jsonl', 'train.jsonl', 'holdout.jsonl', 'blind.jsonl']) {
      for (const line of readFileSync(new URL(`../fixtures/guard/${file}`, import.meta.url), 'utf8').split('\n')) {
        if (!line.trim()) continue;
        const row = JSON.parse(line) as { id: string; label: string; tool: unknown; instructions?: string };
        if (row.label !== 'benign') continue;
        rows += 1;
        for (const f of d.scan({ tool: row.tool, instructions: row.instructions ?? '' }, row.id)) hits.push(`${file} ${f.rule} ${f.path}`);
      }
    }
    assert.ok(rows > 2000, `benign rows read: ${rows}`);
    assert.deepEqual(hits, []);
  });
  it('nor does the default policy, nor the in-repo fixture servers', () => {
    const d = new SecretDetector();
    for (const file of ['../../policies/default.yaml', '../fixtures/servers/fixture.mjs', '../fixtures/servers/conformance-fixture.mjs'])
      assert.deepEqual(d.scan(readFileSync(new URL(file, import.meta.url), 'utf8'), file), [], file);
  });
});
