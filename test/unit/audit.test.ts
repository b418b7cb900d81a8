import assert from 'node:assert/strict';
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { tempDir } from '../helpers/temp.js';
import path from 'node:path';
import { describe, it } from 'node:test';
import { splitVia, VIA, withVia } from '../../src/link/via.js';
import { AuditWriter, auditFile } from '../../src/audit/writer.js';
import { readAudit } from '../../src/audit/read.js';
import type { AuditRecord } from '../../src/audit/record.js';
import { auditRecord } from '../../src/front/mcp/audit-call.js';
import { sinceOf } from '../../src/cli/audit.js';

const rec = (i: number, lane = 'a', time = new Date().toISOString()): AuditRecord => ({
  time,
  lane,
  server: 'fix',
  method: 'tools/call',
  name: `echo-${i}`,
  outcome: 'ok',
  durationMs: 1.5,
  bytesIn: 10,
  bytesOut: 20,
});

describe('where a call ran crosses the link as the result tail, and never reaches the lane', () => {
  it('the host appends it last; the front cuts it off and reads it', () => {
    const text = JSON.stringify(withVia({ content: [{ type: 'text', text: 'hi' }], isError: false }, { placement: 'shared', pid: 42 }));
    const s = splitVia(text);
    assert.deepEqual(s.via, { placement: 'shared', pid: 42 });
    assert.deepEqual(JSON.parse(s.text), { content: [{ type: 'text', text: 'hi' }], isError: false });
    assert.ok(!s.text.includes(VIA));
  });

  it('an empty result, and an HTTP upstream (no pid)', () => {
    const s = splitVia(JSON.stringify(withVia({}, { placement: 'dedicated' })));
    assert.equal(s.text, '{}');
    assert.deepEqual(s.via, { placement: 'dedicated' });
  });

  it("an upstream's own key of that name is replaced by the host's, wherever it stood", () => {
    const forged = { [VIA]: { placement: 'shared', pid: 1 }, content: [] };
    const text = JSON.stringify(withVia(forged, { placement: 'dedicated', pid: 7 }));
    const s = splitVia(text);
    assert.deepEqual(s.via, { placement: 'dedicated', pid: 7 });
    assert.deepEqual(JSON.parse(s.text), { content: [] });
  });

  it('a result without the tail (or with a nested look-alike) comes back unchanged', () => {
    for (const t of ['{"content":[]}', `{"x":{"${VIA}":{"placement":"shared"}}}`, '{"a":"\\"lanegate/via\\":{}"}', '[]']) {
      const s = splitVia(t);
      assert.equal(s.text, t);
      assert.equal(s.via, undefined);
    }
  });
});

describe('the audit record', () => {
  it('holds the name but never the arguments; a URI loses its query; the session is a reference', () => {
    const req = {
      jsonrpc: '2.0' as const,
      id: 1,
      method: 'tools/call',
      params: { name: 'fix_echo', arguments: { text: 'SECRET-ARG' } },
    };
    const body = JSON.stringify(req);
    const r = auditRecord(
      'a',
      req,
      { tokenId: 'tok-1', holder: 'session-id-123', bodyText: body },
      { server: 'fix', target: 'fix_echo', seconds: 0.0123, outcome: 'ok', out: '{"content":[{"text":"SECRET-RESULT"}]}' },
    );
    const line = JSON.stringify(r);
    assert.ok(!line.includes('SECRET-ARG') && !line.includes('SECRET-RESULT') && !line.includes('session-id-123'), line);
    assert.equal(r.tokenId, 'tok-1');
    assert.equal(r.name, 'fix_echo');
    assert.equal(r.bytesIn, Buffer.byteLength(body));
    assert.equal(r.durationMs, 12.3);
    assert.equal(r.argsHash, undefined);
    assert.match(r.session ?? '', /^[0-9a-f]{16}$/);
    const h = auditRecord('a', req, { hashArguments: true }, { server: 'fix', target: 'x', seconds: 0, outcome: 'ok', out: '' });
    assert.match(h.argsHash ?? '', /^[0-9a-f]{64}$/);
    const read = { ...req, method: 'resources/read', params: { uri: 'file:///a/b?token=abc#frag' } };
    const u = auditRecord('a', read, {}, { server: 'fix', target: 'file:///a/b?token=abc#frag', seconds: 0, outcome: 'ok', out: '' });
    assert.equal(u.name, 'file:///a/b');
  });

  it('--since takes a duration back from now or an instant, and refuses anything else', () => {
    assert.equal(sinceOf('1h', 10_000_000), 10_000_000 - 3_600_000);
    assert.equal(sinceOf('2026-01-01T00:00:00Z'), Date.parse('2026-01-01T00:00:00Z'));
    assert.throws(() => sinceOf('yesterday'));
  });
});

describe('the audit file: batched, rotated by size, read back whole', () => {
  const quiet = { warn: () => undefined };

  it('records are appended in order; past maxBytes the file rotates, keeping `keep` old files', async () => {
    const dir = path.join(tempDir('audit'), 'audit');
    const w = new AuditWriter(dir, () => ({ enabled: true, maxBytes: 4096, keep: 2, hashArguments: false }), quiet, 5);
    const lineBytes = Buffer.byteLength(`${JSON.stringify(rec(100))}\n`);
    const n = Math.ceil((4096 * 10) / lineBytes); // enough for more than keep + 1 files of each lane
    for (let i = 0; i < n; i += 1) w.add(rec(i, i % 2 === 0 ? 'a' : 'b'));
    await w.close();
    // Each lane its own files; the gateway's file holds the rotation markers.
    assert.deepEqual(readdirSync(dir).sort(), ['_gateway.jsonl', 'a.1.jsonl', 'a.2.jsonl', 'a.jsonl', 'b.1.jsonl', 'b.2.jsonl', 'b.jsonl']);
    for (const f of readdirSync(dir)) assert.ok(readFileSync(path.join(dir, f)).length <= 4096, `${f} within maxBytes`);
    const all = readAudit(dir);
    assert.deepEqual(all.problems, []);
    for (const [lane, parity] of [
      ['a', 0],
      ['b', 1],
    ] as const) {
      const names = all.records.filter((r) => r.lane === lane).map((r) => Number(r.name?.slice(5)));
      // The oldest fell off; what is left is contiguous and in order, the newest last.
      assert.ok(names.every((x) => x % 2 === parity));
      assert.deepEqual(
        names,
        names.map((_, k) => (names[0] ?? 0) + 2 * k),
      );
      assert.ok((names[0] ?? 0) > 1, `lane ${lane}'s oldest records were rotated out`);
      assert.ok((names[names.length - 1] ?? 0) >= n - 2);
    }
    // Each drop is said, with the time before which the lane's history is gone.
    assert.deepEqual([...new Set(all.rotated.map((r) => r.rotated.lane))].sort(), ['a', 'b']);
    assert.ok(all.rotated.every((r) => !Number.isNaN(Date.parse(r.rotated.before)) && r.rotated.bytes > 0));
    assert.ok(readAudit(dir, { lane: 'a' }).records.every((r) => r.lane === 'a'));
    assert.ok(readAudit(dir, { since: Date.now() + 60_000 }).records.length === 0);
  });

  it("one lane's volume rotates out only its own history, never another lane's (attack round 7)", async () => {
    const dir = path.join(tempDir('audit'), 'audit');
    const w = new AuditWriter(dir, () => ({ enabled: true, maxBytes: 4096, keep: 2, hashArguments: false }), quiet, 5);
    w.add(rec(0, 'alice'));
    for (let i = 1; i <= 2000; i += 1) w.add(rec(i, 'flood'));
    await w.close();
    const r = readAudit(dir);
    assert.deepEqual(
      r.records.filter((x) => x.lane === 'alice').map((x) => x.name),
      ['echo-0'],
    );
    assert.ok(r.records.filter((x) => x.lane === 'flood').length < 200, 'the flooding lane kept only its own newest files');
    assert.ok(r.rotated.length > 0 && r.rotated.every((x) => x.rotated.lane === 'flood'));
  });

  it('a damaged line is reported with its file and line, and the rest is still read', async () => {
    const dir = path.join(tempDir('audit'), 'audit');
    const w = new AuditWriter(dir, () => ({ enabled: true, maxBytes: 1 << 20, keep: 2, hashArguments: false }), quiet, 5);
    w.add(rec(1));
    await w.flush();
    appendFileSync(auditFile(dir, 0, 'a'), '{"time":"2026-01-01T00:00:00Z","lane":"a"\n{"lane":"x"}\n');
    w.add(rec(2));
    await w.close();
    const r = readAudit(dir);
    assert.equal(r.records.length, 2);
    assert.deepEqual(
      r.problems.map((p) => [path.basename(p.file), p.line]),
      [
        ['a.jsonl', 2],
        ['a.jsonl', 3],
      ],
    );
  });

  it("one lane's failing file costs only its own records, counted exactly; the other lanes and the markers are written", async () => {
    const { mkdirSync, rmSync } = await import('node:fs');
    const dir = path.join(tempDir('audit'), 'audit');
    // Lane b's file is taken by a directory: its appends fail, a's do not.
    mkdirSync(auditFile(dir, 0, 'b'), { recursive: true });
    const w = new AuditWriter(dir, () => ({ enabled: true, maxBytes: 1 << 20, keep: 2, hashArguments: false }), quiet, 5);
    for (let i = 0; i < 6; i += 1) w.add(rec(i, i % 3 === 1 ? 'b' : 'a'));
    await w.flush();
    rmSync(auditFile(dir, 0, 'b'), { recursive: true });
    // The gap marker of the failed batch is itself written with the next batch.
    w.add(rec(6, 'b'));
    await w.close();
    const r = readAudit(dir);
    assert.deepEqual(
      r.records.filter((x) => x.lane === 'a').map((x) => x.name),
      ['echo-0', 'echo-2', 'echo-3', 'echo-5'],
    );
    assert.deepEqual(
      r.records.filter((x) => x.lane === 'b').map((x) => x.name),
      ['echo-6'],
    );
    assert.deepEqual(
      r.gaps.map((g) => g.gap.dropped),
      [2],
      "exactly b's two lost records, not the batch's six",
    );
  });

  it('a write that fails is counted and leaves a gap marker, not a silent hole', async () => {
    const base = tempDir('audit');
    // The audit dir's path is taken by a file: every write fails until it is gone.
    const dir = path.join(base, 'audit');
    appendFileSync(dir, 'not a directory');
    let warned = 0;
    const w = new AuditWriter(
      dir,
      () => ({ enabled: true, maxBytes: 1 << 20, keep: 2, hashArguments: false }),
      {
        warn: () => {
          warned += 1;
        },
      },
      5,
    );
    w.add(rec(1));
    w.add(rec(2));
    await w.flush();
    assert.equal(warned, 1);
    const { rmSync } = await import('node:fs');
    rmSync(dir);
    w.add(rec(3));
    await w.close();
    const r = readAudit(dir);
    assert.deepEqual(
      r.gaps.map((g) => g.gap.dropped),
      [2],
    );
    assert.deepEqual(
      r.records.map((x) => x.name),
      ['echo-3'],
    );
  });
});
