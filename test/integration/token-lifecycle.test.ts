import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execa } from 'execa';
import { CLI, cli, fixtureTwoLanes, policyHead, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { legacySession, modernPost } from '../helpers/mcp.js';

/** A session's GET stream; `closed` resolves (with the time) when the front ends it. */
const getStream = async (url: string, h: Record<string, string>) => {
  const ac = new AbortController();
  const res = await fetch(url, { method: 'GET', headers: { ...h, accept: 'text/event-stream' }, signal: ac.signal });
  const closed = (async () => {
    const reader = res.body?.getReader();
    for (let i = 0; reader && i < 10_000; i += 1) if ((await reader.read().catch(() => ({ done: true }))).done) break;
    return Date.now();
  })();
  return { res, closed, abort: () => ac.abort() };
};

/** A sessionless 2026-07-28 tools/list: 200 while the token is admitted, 401 once it is not. */
const ping = async (url: string, token: string): Promise<number> => (await modernPost(url, token, 9, 'tools/list')).status;

/** Polls until `ok()` or `ms` passed; returns the elapsed ms (or -1). */
const within = async (ms: number, ok: () => Promise<boolean>): Promise<number> => {
  const t0 = Date.now();
  while (Date.now() - t0 < ms) {
    if (await ok()) return Date.now() - t0;
    await new Promise((r) => setTimeout(r, 25));
  }
  return -1;
};

describe('token lifecycle from the CLI, applied to the running gateway with no reload', () => {
  let gw: RunningGateway;
  const run = (...args: string[]) => cli([...args, '--policy', gw.policyFile]);
  before(async () => {
    gw = await startGateway(`${policyHead()}${fixtureTwoLanes()}`);
  });
  after(() => gw.stop());

  it('token list shows id, lane, issued, expires and state, never the token', async () => {
    const issued = await cli(['token', 'issue', '--lane', 'a', '--ttl', '1h', '--quiet', '--policy', gw.policyFile]);
    const token = String(issued.stdout).trim();
    const id = /token id ([0-9a-f-]{36})/.exec(String(issued.stderr))?.[1];
    assert.ok(id, 'token issue --quiet names the token id on stderr');
    const list = await run('token', 'list');
    assert.equal(list.exitCode, 0, String(list.stderr));
    const row = String(list.stdout)
      .split('\n')
      .find((l) => l.startsWith(id));
    assert.match(row ?? '', /^\S+\s+a\s+\d{4}-\d\d-\d\dT\S+Z\s+\d{4}-\d\d-\d\dT\S+Z\s+active$/);
    assert.ok(!String(list.stdout).includes(token.split('.')[2] ?? 'x'), 'no token in the listing');
    const json = JSON.parse(String((await run('token', 'list', '--json')).stdout)) as { tokens: { id: string; state: string }[] };
    assert.equal(json.tokens.find((t) => t.id === id)?.state, 'active');
  });

  it('token revoke ID ends the open session within a second and refuses the token; the other lane is untouched', async (t) => {
    const ta = await gw.token('a');
    const tb = await gw.token('b');
    const id = (JSON.parse(String((await run('token', 'list', '--json')).stdout)) as { tokens: { id: string; lane: string }[] }).tokens
      .filter((t) => t.lane === 'a')
      .at(-1)?.id;
    assert.ok(id);
    const sa = await getStream(gw.url, await legacySession(gw.url, ta));
    const sb = await getStream(gw.url, await legacySession(gw.url, tb));
    assert.equal(sa.res.status, 200);
    assert.equal(await ping(gw.url, ta), 200);
    const t0 = Date.now();
    const r = await run('token', 'revoke', id ?? '');
    const written = Date.now(); // the revocation is on disk before the CLI exits
    assert.equal(r.exitCode, 0, String(r.stderr));
    assert.match(String(r.stdout), /revoked token \S+ \(lane "a"\)/);
    const ended = await Promise.race([sa.closed, new Promise<number>((res) => setTimeout(() => res(-1), 3000))]);
    assert.ok(ended > 0 && ended - written < 1000, `the session's stream ended ${ended - written} ms after the CLI exited`);
    t.diagnostic(`revoke CLI ran ${written - t0} ms; stream ended ${ended - t0} ms after it started`);
    assert.equal(await ping(gw.url, ta), 401);
    assert.equal(await ping(gw.url, tb), 200, 'lane b keeps working');
    const still = await Promise.race([sb.closed.then(() => 'closed'), new Promise((res) => setTimeout(() => res('open'), 300))]);
    assert.equal(still, 'open', "lane b's stream stays open");
    sb.abort();
    assert.match(String((await run('token', 'list', '--lane', 'a')).stdout), new RegExp(`${id}.*revoked \\d{4}`));
  });

  it('token revoke --lane refuses every older token of the lane; a new one works', async () => {
    const tb = await gw.token('b');
    assert.equal(await ping(gw.url, tb), 200);
    await new Promise((r) => setTimeout(r, 1100)); // iat has one-second resolution
    const r = await run('token', 'revoke', '--lane', 'b');
    assert.equal(r.exitCode, 0, String(r.stderr));
    assert.ok((await within(1000, async () => (await ping(gw.url, tb)) === 401)) >= 0, 'refused within a second');
    await new Promise((r) => setTimeout(r, 1100));
    assert.equal(await ping(gw.url, await gw.token('b')), 200, 'a token issued after the lane revocation works');
    assert.equal((await run('token', 'revoke', '--lane', 'nope')).exitCode, 1);
    assert.equal((await run('token', 'revoke')).exitCode, 2, 'an id or --lane is required');
  });

  it('key rotate: a token signed by the new key works at once, with no reload; the rotation is logged', async () => {
    const old = await gw.token('a');
    const r = await run('key', 'rotate', '--keep-old', '1h');
    assert.equal(r.exitCode, 0, String(r.stderr));
    assert.match(String(r.stdout), /within a second/);
    const fresh = await gw.token('a');
    assert.ok((await within(1000, async () => (await ping(gw.url, fresh)) === 200)) >= 0, 'the new key is accepted within a second');
    assert.equal(await ping(gw.url, old), 200, 'tokens of the retired key are accepted until their date');
    assert.ok((await within(2000, async () => /signing keys changed/.test(gw.stderr()))) >= 0, 'logged at info');
  });

  it('concurrent token issue and revoke lose nothing (one writer at a time)', async () => {
    const before = (JSON.parse(String((await run('token', 'list', '--json')).stdout)) as { tokens: unknown[] }).tokens.length;
    const target = (
      JSON.parse(String((await run('token', 'list', '--json')).stdout)) as { tokens: { id: string; state: string }[] }
    ).tokens.find((t) => t.state === 'active');
    const runs = await Promise.all([
      ...Array.from({ length: 8 }, () => run('token', 'issue', '--lane', 'a', '--quiet')),
      run('token', 'revoke', target?.id ?? ''),
    ]);
    for (const r of runs) assert.equal(r.exitCode, 0, String(r.stderr));
    const after = JSON.parse(String((await run('token', 'list', '--json')).stdout)) as { tokens: { id: string; state: string }[] };
    assert.equal(after.tokens.length, before + 8, 'every issued token recorded');
    assert.match(after.tokens.find((t) => t.id === target?.id)?.state ?? '', /^revoked/, 'the revocation survived the concurrent writes');
  });

  it('unreadable token records refuse every lane at run time, and a restart refuses to serve', async () => {
    const ta = await gw.token('a');
    assert.equal(await ping(gw.url, ta), 200);
    const file = path.join(gw.stateDir, 'records/tokens.json');
    writeFileSync(file, '{ not json');
    assert.ok((await within(1000, async () => (await ping(gw.url, ta)) === 401)) >= 0, 'refused within a second');
    assert.ok((await within(2000, async () => /token records unreadable: every lane is refused/.test(gw.stderr()))) >= 0, 'logged');
    const check = await run('check');
    assert.equal(check.exitCode, 1);
    assert.match(String(check.stderr), /tokens\.json is not valid JSON/);
    const second = await execa(process.execPath, [CLI, 'serve', '--policy', gw.policyFile, '--port', '0', '--no-lane-configs'], {
      reject: false,
      timeout: 20_000,
    });
    assert.equal(second.exitCode, 1);
    assert.match(String(second.stderr), /records_corrupt/);
    assert.equal((await run('token', 'revoke', '--lane', 'a')).exitCode, 1, 'a revocation never starts from an unreadable file');
  });
});
