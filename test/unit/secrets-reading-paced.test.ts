import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SecretDetector, WALK_CHARS } from '../../src/guard/secrets/detector.js';
import { normalise, normalisePaced, READ_STEP, readThrough, readThroughPaced } from '../../src/guard/secrets/normalise.js';
import { PACED_CHARS, scanText, scanTextPaced } from '../../src/guard/secrets/text.js';
import { ChildFrames } from '../../src/host/child-frames.js';
import { ProgressTokens } from '../../src/host/progress-tokens.js';
import { ResourceRelay } from '../../src/host/resource-relay.js';
import { SecretGate } from '../../src/host/secret-gate.js';
import type { ServerSlot } from '../../src/host/slot.js';
import type { HostOut } from '../../src/link/protocol.js';
import type { Log } from '../../src/log/lite.js';
import type { ServerConfig } from '../../src/policy/model.js';

// A credential shape, assembled at run time so no scanner of this repository mistakes it for a real one.
const GITHUB = ['ghp', 'Q7mZ2vK9pL4xT8wR1nB6cY3hJ5dF0gS2aE7u'].join('_');
/** Every character percent-encoded `times` times (`g` once is `%67`, twice `%2567`). */
const encoded = (s: string, times: number): string =>
  [...s].map((c) => `%${'25'.repeat(times - 1)}${c.charCodeAt(0).toString(16)}`).join('');

const counting = () => {
  let pauses = 0;
  return {
    pause: async (): Promise<void> => {
      pauses += 1;
    },
    pauses: () => pauses,
  };
};

describe('reading through disguises a step at a time (attack round 36: one reading was a 3-9 s block)', () => {
  it('a paced reading is the one-pass reading, text and every range, whatever the step (disguises cut at any step boundary)', async () => {
    const disguises = ['\u200b', '\u00ad', '%41', '%2541', '%25252f', '％', '𝐀', '℡', '%C2%AD', '%ef%bd%87', '\ud835'];
    let seed = 11;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let round = 0; round < 150; round += 1) {
      let original = '';
      for (let i = 0, n = 1 + rand(60); i < n; i += 1)
        original += rand(3) === 0 ? disguises[rand(disguises.length)] : 'abc%XY019_-'[rand(11)];
      const step = 1 + rand(9);
      const once = normalise(original);
      const paced = await normalisePaced(original, async () => {}, step);
      assert.equal(paced?.text, once?.text, JSON.stringify({ original, step }));
      const through = readThrough(original);
      const throughPaced = await readThroughPaced(original, async () => {}, step);
      assert.equal(throughPaced?.text, through?.text, JSON.stringify({ original, step }));
      if (!through || !throughPaced) continue;
      for (let s = 0; s < through.text.length; s += 1)
        for (let e = s + 1; e <= through.text.length; e += 3)
          assert.deepEqual(throughPaced.map.range(s, e), through.map.range(s, e), JSON.stringify({ original, step, s, e }));
    }
  });

  it('maps back exactly across many chunks of the index (tens of thousands of pieces)', () => {
    const original = `${'%41x'.repeat(30_000)}${'\u200by'.repeat(30_000)}`;
    const n = readThrough(original);
    assert.ok(n);
    assert.equal(n.text, `${'Ax'.repeat(30_000)}${'y'.repeat(30_000)}`);
    for (const i of [0, 1, 2, 16_383, 16_384, 16_385, 59_999, 60_000, 60_001, 89_999]) {
      const [a, b] = n.map.range(i, i + 1);
      const want =
        i < 60_000
          ? i % 2 === 0
            ? [i * 2, i * 2 + 3]
            : [i * 2 + 1, i * 2 + 2]
          : [120_000 + (i - 60_000) * 2 + 1, 120_000 + (i - 60_000) * 2 + 2];
      assert.deepEqual([a, b], want, `piece at ${i}`);
    }
  });

  it('pauses once per step of each reading: 1 MB of nested escapes is read in hundreds of steps, not one', async () => {
    const text = '%252567%'.repeat(131_072);
    const c = counting();
    const n = await readThroughPaced(text, c.pause);
    assert.equal(n?.text, readThrough(text)?.text);
    // Three readings (1 MB, then 768 KB, then 512 KB), each a step per READ_STEP characters.
    const least = Math.floor(text.length / READ_STEP) + Math.floor((text.length * 3) / 4 / READ_STEP);
    assert.ok(c.pauses() >= least, `paused ${c.pauses()} times, expected at least ${least}`);
  });

  it('scanTextPaced finds a token hidden by nested percent-encoding in a long string, at its range, as scanText does', async () => {
    const pad = '%252567%'.repeat(Math.ceil(PACED_CHARS / 8));
    const hidden = encoded(GITHUB, 3);
    const text = `${pad} ${hidden} ${pad}`;
    const whole = scanText(text);
    const paced = await scanTextPaced(text, undefined, async () => {});
    assert.deepEqual(paced, whole);
    assert.deepEqual(
      whole.map((h) => text.slice(h.start, h.end)),
      [hidden],
    );
  });
});

describe('a scan for findings keeps no index of its readings', () => {
  it('finds the same rules without one, each placed on the whole string', async () => {
    const pad = '%252567%'.repeat(Math.ceil(PACED_CHARS / 8));
    const text = `${pad} ${encoded(GITHUB, 3)} ${pad} ${encoded(GITHUB, 2)} ${GITHUB}`;
    const exact = await scanTextPaced(text, undefined, async () => {});
    const found = await scanTextPaced(text, undefined, async () => {}, undefined, undefined, false);
    assert.deepEqual([...new Set(found.map((h) => h.rule))], [...new Set(exact.map((h) => h.rule))]);
    assert.deepEqual(
      found.filter((h) => h.start !== exact.find((e) => e.start === h.start)?.start),
      [{ rule: 'github_token', start: 0, end: text.length }],
      'the token in plain sight keeps its range; the ones read through escapes are placed on the whole string, once',
    );
    assert.equal(exact.length, 3);
  });
});

describe('a paced walk counts characters too, and redaction and notifications are paced', () => {
  const d = new SecretDetector();

  it('many strings just short of PACED_CHARS are read over several steps, with the one-step findings', async () => {
    const near = '%252567%'.repeat(Math.floor((PACED_CHARS - 1) / 8));
    const value = { parts: Array.from({ length: 12 }, (_, i) => (i === 9 ? `${near} ${encoded(GITHUB, 2)}` : near)) };
    const c = counting();
    const paced = d.scanPaced(value, 'result', undefined, c.pause);
    assert.ok(paced instanceof Promise, 'walked in more than one step');
    assert.deepEqual(await paced, d.scan(value, 'result'));
    assert.deepEqual(await paced, [{ rule: 'github_token', path: 'result.parts[9]' }]);
    assert.ok(c.pauses() >= Math.floor((12 * near.length) / WALK_CHARS) - 1, `paused ${c.pauses()} times`);
  });

  it('redactPaced is redact: the disguised token cut out of a long string and a long key, the rest kept', async () => {
    const pad = 'lorem ipsum %2567 '.repeat(Math.ceil(PACED_CHARS / 18));
    const value = { text: `${pad}${encoded(GITHUB, 2)}${pad}`, [`${pad}${GITHUB}`]: 1, short: `k ${GITHUB}` };
    const c = counting();
    const paced = await d.redactPaced(value, undefined, c.pause);
    assert.deepEqual(paced, d.redact(value));
    const json = JSON.stringify(paced);
    assert.ok(!json.includes(GITHUB) && !json.includes(encoded(GITHUB, 2)), 'no form of the token is left');
    assert.equal((json.match(/\[secret redacted: github_token\]/g) ?? []).length, 3);
    assert.ok(c.pauses() > 2, 'the long strings were read with pauses');
  });

  it("a child's notification holding long text is checked paced, and the child's next notifications wait for it (order kept)", async () => {
    const notes: { method: string; params: Record<string, unknown> }[] = [];
    const out = { notify: (method: string, params: Record<string, unknown>) => notes.push({ method, params }), request: async () => ({}) };
    const log: Log = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
    const config = { name: 'every', prefix: 'every', domain: 'public' } as ServerConfig;
    const slot = { config, placement: 'dedicated' } as unknown as ServerSlot;
    const frames = new ChildFrames({
      slot: () => slot,
      out: out as unknown as HostOut,
      progress: new ProgressTokens(),
      resources: new ResourceRelay(() => 1000),
      log,
      secrets: new SecretGate([], out as unknown as HostOut, log),
      onListChanged: () => {},
      onRetreated: () => {},
    });
    const scope = { lanes: ['research'], sole: 'research', contested: false, era: 'legacy' as const, key: 'research|legacy' };
    const message = (data: string) => ({ jsonrpc: '2.0' as const, method: 'notifications/message', params: { level: 'info', data } });
    const long = '%252567%'.repeat(Math.ceil(PACED_CHARS / 4));
    frames.notification('every', scope, message(long));
    frames.notification('every', scope, message('second'));
    frames.notification('every', scope, message(`${long} ${encoded(GITHUB, 3)}`));
    frames.notification('every', scope, message('fourth'));
    assert.equal(notes.length, 0, 'nothing overtakes the long one while it is read');
    for (let i = 0; i < 200 && notes.filter((n) => n.method === 'lanegate/notify').length < 3; i += 1)
      await new Promise((r) => setTimeout(r, 20));
    const sent = notes.filter((n) => n.method === 'lanegate/notify').map((n) => (n.params.params as { data: string }).data);
    assert.deepEqual(
      sent.map((s) => (s.length > 100 ? 'long' : s)),
      ['long', 'second', 'fourth'],
      'in order; the one holding a secret is withheld',
    );
    assert.ok(
      notes.some((n) => n.method === 'lanegate/secret'),
      'the withheld one is reported',
    );
  });
});
