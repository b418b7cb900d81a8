import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import {
  cli,
  everythingServer,
  FIXTURE,
  measurePass,
  operatorApi,
  policyHead,
  type RunningGateway,
  startGateway,
} from '../helpers/gateway.js';
import { connectClient, modernPost, textOf } from '../helpers/mcp.js';
import { waitFor } from '../helpers/procs.js';

interface Rec {
  time: string;
  lane: string;
  tokenId?: string;
  session?: string;
  server: string;
  method: string;
  name?: string;
  placement?: string;
  pid?: number;
  outcome: string;
  errorCode?: number;
  durationMs: number;
  bytesIn: number;
  bytesOut: number;
}

const POLICY = `${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
${everythingServer()}  fix: { prefix: fix, domain: public, stdio: { command: node, args: ["${FIXTURE}"] } }
lanes:
  a: { servers: [everything, fix] }
  b: { servers: [everything, fix] }
`;

const jti = (token: string): string => JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()).jti as string;

describe('the audit trail: one record per upstream request, read back with `lanegate audit`', () => {
  let gw: RunningGateway;
  let ta: string;
  let tb: string;
  let a: Client;
  // Each lane has its own file (one lane's volume never rotates another's history out).
  const auditFile = (lane = 'a'): string => path.join(gw.stateDir, 'audit', `${lane}.jsonl`);
  const records = (): Rec[] =>
    ['a', 'b'].flatMap((lane) => {
      try {
        return readFileSync(auditFile(lane), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Rec);
      } catch {
        return [];
      }
    });

  before(async () => {
    // Measured: `everything` is placed shared (a pass that passes promotes it live, no restart), `fix`
    // (never measured) dedicated.
    gw = await startGateway(POLICY);
    await measurePass(gw);
    [ta, tb] = await Promise.all([gw.token('a'), gw.token('b')]);
    a = await connectClient(gw.url, ta, 'legacy');
  });
  after(async () => {
    await a?.close().catch(() => undefined);
    await gw?.stop();
  });

  it('records lane, token id, session, placement and the child pid the host used; never arguments or results', async () => {
    assert.match(textOf(await a.callTool({ name: 'every_echo', arguments: { message: 'ARG-SECRET-a1' } })), /ARG-SECRET-a1/);
    const b1 = await modernPost(gw.url, tb, 1, 'tools/call', { name: 'every_echo', arguments: { message: 'ARG-SECRET-b1' } });
    // The host's note of where the call ran never reaches the lane.
    assert.ok(!JSON.stringify(b1.json).includes('lanegate/via'), JSON.stringify(b1.json));
    assert.match(textOf(b1.json?.result), /ARG-SECRET-b1/);
    const aPid = Number(textOf(await a.callTool({ name: 'fix_pid', arguments: {} })));
    const bPid = Number(textOf((await modernPost(gw.url, tb, 2, 'tools/call', { name: 'fix_pid', arguments: {} })).json?.result));
    assert.ok(aPid > 0 && bPid > 0 && aPid !== bPid);
    // A call that fails upstream is recorded with its outcome.
    await modernPost(gw.url, tb, 3, 'tools/call', { name: 'fix_crash', arguments: {} });
    assert.ok(await waitFor(() => records().length >= 5, 10_000, 50), JSON.stringify(records()));

    const all = records();
    const text = readFileSync(auditFile('a'), 'utf8') + readFileSync(auditFile('b'), 'utf8');
    assert.ok(!text.includes('ARG-SECRET'), 'no argument or result text in the files');
    assert.equal(statSync(auditFile()).mode & 0o777, 0o600, 'the audit file is readable by the operator only');
    assert.equal(statSync(path.dirname(auditFile())).mode & 0o777, 0o700);
    const kids = (
      (await operatorApi(gw, '/api/processes')) as {
        hosts: Record<string, { children: { server: string; placement: string; pid: number }[] }>;
      }
    ).hosts.public?.children;
    const shared = kids?.find((k) => k.server === 'everything' && k.placement === 'shared');
    assert.ok(shared, JSON.stringify(kids));

    const echoA = all.find((r) => r.lane === 'a' && r.name === 'every_echo');
    const echoB = all.find((r) => r.lane === 'b' && r.name === 'every_echo');
    assert.equal(echoA?.placement, 'shared');
    assert.equal(echoA?.pid, shared.pid);
    assert.equal(echoB?.placement, 'shared');
    assert.equal(echoB?.pid, shared.pid);
    assert.equal(echoA?.tokenId, jti(ta));
    assert.equal(echoB?.tokenId, jti(tb));
    assert.match(echoA?.session ?? '', /^[0-9a-f]{16}$/, 'the handshake-era session is referenced');
    assert.equal(echoB?.session, undefined, 'a 2026-07-28 call has no session');
    assert.equal(echoA?.outcome, 'ok');
    assert.ok((echoA?.bytesIn ?? 0) > 0 && (echoA?.bytesOut ?? 0) > 0 && (echoA?.durationMs ?? -1) >= 0);

    const pidA = all.find((r) => r.lane === 'a' && r.name === 'fix_pid');
    const pidB = all.find((r) => r.lane === 'b' && r.name === 'fix_pid');
    assert.deepEqual([pidA?.placement, pidA?.pid], ['dedicated', aPid]);
    assert.deepEqual([pidB?.placement, pidB?.pid], ['dedicated', bPid]);
    const crash = all.find((r) => r.name === 'fix_crash');
    assert.ok(crash && crash.outcome !== 'ok', JSON.stringify(crash));
  });

  it('`lanegate audit` filters by lane, server and time, prints JSON on request, and reports a damaged line', async () => {
    const byLane = await cli(['audit', '--policy', gw.policyFile, '--lane', 'a']);
    assert.equal(byLane.exitCode, 0, String(byLane.stderr));
    const out = String(byLane.stdout);
    assert.match(out, /^time\s+lane\s+server\s+request\s+placement pid/);
    assert.match(out, /every_echo/);
    assert.match(out, /shared \d+/);
    assert.ok(
      out
        .split('\n')
        .slice(1)
        .filter(Boolean)
        .every((l) => l.split(/\s+/)[2] === 'a'),
      out,
    );

    const json = await cli(['audit', '--policy', gw.policyFile, '--server', 'fix', '--since', '1h', '--json']);
    assert.equal(json.exitCode, 0);
    const parsed = JSON.parse(String(json.stdout)) as { records: Rec[]; problems: unknown[] };
    assert.ok(parsed.records.length >= 3);
    assert.ok(parsed.records.every((r) => r.server === 'fix'));
    const future = await cli(['audit', '--policy', gw.policyFile, '--since', new Date(Date.now() + 3_600_000).toISOString(), '--json']);
    assert.equal((JSON.parse(String(future.stdout)) as { records: Rec[] }).records.length, 0);

    appendFileSync(auditFile(), '{"time":"2026-01-01T00:00:00Z","lane":"a","serv\n');
    const damaged = await cli(['audit', '--policy', gw.policyFile, '--lane', 'a']);
    assert.equal(damaged.exitCode, 1);
    assert.match(String(damaged.stderr), /a\.jsonl:\d+: not JSON/);
    assert.match(String(damaged.stdout), /every_echo/, 'the good records are still listed');
  });
});
