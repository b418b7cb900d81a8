import assert from 'node:assert/strict';
import { request } from 'node:http';
import { writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { cli, fixtureTwoLanes, policyHead, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { legacySession, modernMeta, modernPost, post } from '../helpers/mcp.js';
import { sleep } from '../helpers/procs.js';

const POLICY = (revoked: string[] = []) => `${policyHead(`  limits: { streamsPerLane: 3, callsPerLane: 4 }`)}
${fixtureTwoLanes()}revokedTokenIds: ${JSON.stringify(revoked)}
`;

/** A time limit whose timer can be let go once what it bounds has happened (a pending timer holds the file open). */
const deadline = (ms: number): { passed: Promise<void>; clear: () => void } => {
  let timer: NodeJS.Timeout | undefined;
  const passed = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return { passed, clear: () => clearTimeout(timer) };
};

/** A session's GET stream; `closed` resolves when the front ends it. */
const getStream = async (url: string, h: Record<string, string>) => {
  const ac = new AbortController();
  const res = await fetch(url, { method: 'GET', headers: { ...h, accept: 'text/event-stream' }, signal: ac.signal });
  const closed = (async () => {
    if (!res.body) return;
    const reader = res.body.getReader();
    for (let i = 0; i < 10_000; i += 1) if ((await reader.read().catch(() => ({ done: true }))).done) return;
  })();
  return { res, closed, abort: () => ac.abort() };
};

describe('no lane can hurt the front or another lane', () => {
  let gw: RunningGateway;
  let ta: string;
  let tb: string;
  before(async () => {
    gw = await startGateway(POLICY());
    ta = await gw.token('a');
    tb = await gw.token('b');
  });
  after(async () => gw.stop());

  it('JSON nested past the limit answers 400 -32600, in id or in arguments; never a 500', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    for (const body of [
      `{"jsonrpc":"2.0","id":${deep},"method":"ping"}`,
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fix_echo","arguments":{"text":${deep}}}}`,
    ]) {
      const r = await post(gw.url, body, { authorization: `Bearer ${ta}` });
      assert.equal(r.status, 400);
      assert.equal((r.json?.error as { code?: number } | undefined)?.code, -32600);
      assert.match(String((r.json?.error as { message?: string } | undefined)?.message), /gateway\.limits\.jsonDepth/);
    }
  });

  it('content negotiation as the SDK does it: 415 for a non-JSON body, 406 for an Accept without JSON (or SSE where the era needs it)', async () => {
    const ping = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    });
    const auth = { authorization: `Bearer ${ta}` };
    assert.equal((await post(gw.url, ping, { ...auth, 'content-type': 'text/plain' })).status, 415);
    assert.equal((await post(gw.url, ping, { ...auth, accept: 'text/html' })).status, 406);
    // (fetch always sends an Accept; node:http sends none)
    const noAccept = await new Promise<number>((resolve) => {
      const u = new URL(gw.url);
      const req = request(
        { host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { ...auth, 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.end(ping);
    });
    assert.equal(noAccept, 406);
    assert.equal((await post(gw.url, ping, { ...auth, accept: 'application/json' })).status, 406, 'the handshake era needs both');
    assert.equal((await post(gw.url, ping, { ...auth, accept: '*/*' })).status, 200);
    const modern = await post(
      gw.url,
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: modernMeta } },
      {
        ...auth,
        accept: 'application/json',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
      },
    );
    assert.equal(modern.status, 200, '2026-07-28 answers JSON to an Accept of JSON alone');
    const h = await legacySession(gw.url, ta);
    const get = await fetch(gw.url, { method: 'GET', headers: { ...h, accept: 'application/json' } });
    assert.equal(get.status, 406);
  });

  it('one GET stream per session (409 for a second), a capped number per lane (429, Retry-After, the setting named)', async () => {
    const s1 = await legacySession(gw.url, ta);
    const g1 = await getStream(gw.url, s1);
    assert.equal(g1.res.status, 200);
    const again = await fetch(gw.url, { method: 'GET', headers: { ...s1, accept: 'text/event-stream' } });
    assert.equal(again.status, 409);
    const more = [await getStream(gw.url, await legacySession(gw.url, ta)), await getStream(gw.url, await legacySession(gw.url, ta))];
    assert.deepEqual(
      more.map((g) => g.res.status),
      [200, 200],
    );
    const over = await fetch(gw.url, { method: 'GET', headers: { ...(await legacySession(gw.url, ta)), accept: 'text/event-stream' } });
    assert.equal(over.status, 429);
    assert.equal(over.headers.get('retry-after'), '30');
    const err = ((await over.json()) as { error: { code: number; message: string; data: { limit: string } } }).error;
    assert.equal(err.data.limit, 'gateway.limits.streamsPerLane');
    const other = await getStream(gw.url, await legacySession(gw.url, tb));
    assert.equal(other.res.status, 200, "another lane's stream is not counted against lane a");
    for (const g of [g1, ...more, other]) g.abort();
    // The front gives a stream's place back when it sees its client go: wait for that (at most 5 s).
    let freed = await getStream(gw.url, await legacySession(gw.url, ta));
    for (let i = 0; i < 50 && freed.res.status === 429; i += 1) {
      await sleep(100);
      freed = await getStream(gw.url, await legacySession(gw.url, ta));
    }
    assert.equal(freed.res.status, 200, 'closed streams give their places back');
    freed.abort();
  });

  it('two sessions of ONE lane using the same progress token each get only their own progress', async () => {
    const call = async (h: Record<string, string>) => {
      const res = await fetch(gw.url, {
        method: 'POST',
        headers: h,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'fix_progress', arguments: {}, _meta: { progressToken: 7 } },
        }),
      });
      return (await res.text())
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => JSON.parse(l.slice(5)) as { method?: string; params?: { progressToken?: unknown }; result?: unknown });
    };
    const [x, y] = await Promise.all([call(await legacySession(gw.url, ta)), call(await legacySession(gw.url, ta))]);
    for (const msgs of [x, y]) {
      const progress = msgs.filter((m) => m.method === 'notifications/progress');
      assert.equal(progress.length, 3, JSON.stringify(msgs));
      assert.ok(
        progress.every((m) => m.params?.progressToken === 7),
        'under the token the lane chose',
      );
      assert.ok(msgs.at(-1)?.result, 'and then the result');
    }
  });

  it('revocation reaches what is open: a reload that revokes a token ends its sessions and streams; others stay', async () => {
    const issued = await cli(['token', 'issue', '--policy', gw.policyFile, '--lane', 'a', '--ttl', '1h']);
    const doomed = /"Bearer ([^"]+)"/.exec(String(issued.stdout))?.[1] ?? '';
    const jti =
      /token id ([0-9a-f-]{36})/.exec(String(issued.stdout) + String(issued.stderr))?.[1] ??
      JSON.parse(Buffer.from(doomed.split('.')[1] ?? '', 'base64url').toString()).jti;
    const hd = await legacySession(gw.url, doomed);
    const gd = await getStream(gw.url, hd);
    const listen = await fetch(gw.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${doomed}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'l',
        method: 'subscriptions/listen',
        params: { notifications: { toolsListChanged: true }, _meta: modernMeta },
      }),
    });
    const listenDone = (async () => {
      const reader = listen.body?.getReader();
      for (let i = 0; reader && i < 10_000; i += 1) if ((await reader.read()).done) return;
    })();
    const hk = await legacySession(gw.url, ta);
    const gk = await getStream(gw.url, hk);
    writeFileSync(gw.policyFile, POLICY([jti]));
    const reload = await cli(['reload', '--policy', gw.policyFile, '--url', gw.url]);
    assert.equal(reload.exitCode, 0, String(reload.stderr));
    const d1 = deadline(5000);
    await Promise.race([
      Promise.all([gd.closed, listenDone]),
      d1.passed.then(() => assert.fail('a stream of the revoked token stayed open')),
    ]);
    d1.clear();
    const after = await fetch(gw.url, {
      method: 'POST',
      headers: { ...hd, authorization: `Bearer ${ta}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' }),
    });
    assert.equal(after.status, 404, 'its session is gone, even for another valid token of the lane');
    const kept = await fetch(gw.url, { method: 'POST', headers: hk, body: JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'ping' }) });
    assert.equal(kept.status, 200, 'a session opened with a token still valid is untouched');
    gk.abort();
  });

  it('key rotation ends nothing still valid: old tokens and their streams live until the printed date, then end', async () => {
    writeFileSync(gw.policyFile, POLICY());
    const old = await gw.token('a');
    const h = await legacySession(gw.url, old);
    const g = await getStream(gw.url, h);
    const rot = await cli(['key', 'rotate', '--keep-old', '1h', '--policy', gw.policyFile]);
    assert.equal(rot.exitCode, 0, String(rot.stderr));
    const oldKid = /tokens signed by (\S+) are accepted until ([^\s,]+)/.exec(String(rot.stdout));
    assert.ok(oldKid, String(rot.stdout));
    assert.equal((await cli(['reload', '--policy', gw.policyFile, '--url', gw.url])).exitCode, 0);
    const fresh = await gw.token('a');
    assert.notEqual(
      JSON.parse(Buffer.from(fresh.split('.')[0] ?? '', 'base64url').toString()).kid,
      oldKid[1],
      'new tokens use the new key',
    );
    for (const tok of [old, fresh]) assert.equal((await modernPost(gw.url, tok, 1, 'tools/list')).status, 200);
    const ping = () => fetch(gw.url, { method: 'POST', headers: h, body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }) });
    assert.equal((await ping()).status, 200, 'the old token still serves its session after the rotation');
    const list = JSON.parse(String((await cli(['key', 'list', '--json', '--policy', gw.policyFile])).stdout)) as {
      keys: { kid: string; acceptedUntil?: string; signing: boolean }[];
    };
    assert.equal(list.keys.find((k) => k.kid === oldKid[1])?.acceptedUntil, oldKid[2]);
    assert.equal(list.keys.filter((k) => k.signing).length, 1);
    // The grace ends (as if the date had passed): the old key's tokens and what they opened end.
    writeFileSync(`${gw.stateDir}/keys/${oldKid[1]}.until`, JSON.stringify({ acceptedUntil: new Date(Date.now() - 1000).toISOString() }));
    assert.equal((await cli(['reload', '--policy', gw.policyFile, '--url', gw.url])).exitCode, 0);
    const d2 = deadline(5000);
    await Promise.race([g.closed, d2.passed.then(() => assert.fail('the stream of a retired key stayed open'))]);
    d2.clear();
    assert.equal((await modernPost(gw.url, old, 2, 'tools/list')).status, 401);
    assert.equal((await modernPost(gw.url, fresh, 3, 'tools/list')).status, 200);
  });

  it('type confusion found by a black-box attack: a hostile toString or a prototype method name is a clean error, never a crash', async () => {
    const hostile = { toString: 1 };
    // (fresh tokens: the rotation test above retired the key the first ones were signed with)
    const [ta, tb] = [await gw.token('a'), await gw.token('b')];
    const modern = await modernPost(gw.url, ta, 2, 'tools/call', { name: hostile, arguments: { text: 'x' } });
    assert.equal(modern.status, 400);
    assert.equal((modern.json?.error as { code?: number } | undefined)?.code, -32602);
    const h = await legacySession(gw.url, ta);
    for (const [method, params] of [
      ['tools/call', { name: hostile }],
      ['tools/call', { name: ['fix_echo'], arguments: { text: 'array name' } }],
      ['prompts/get', { name: hostile }],
      ['resources/read', { uri: hostile }],
      ['resources/subscribe', { uri: hostile }],
      ['completion/complete', { ref: { type: 'ref/prompt', name: hostile }, argument: { name: 'a', value: 'b' } }],
      ['logging/setLevel', { level: hostile }],
    ] as const) {
      const r = await post(gw.url, { jsonrpc: '2.0', id: 3, method, params }, h);
      assert.equal(r.status, 400, `${method} ${JSON.stringify(params)}`);
      assert.equal((r.json?.error as { code?: number } | undefined)?.code, -32602, method);
    }
    for (const method of ['toString', 'constructor', '__proto__', 'valueOf', 'hasOwnProperty']) {
      const r = await post(gw.url, { jsonrpc: '2.0', id: 4, method, params: {} }, h);
      assert.equal((r.json?.error as { code?: number } | undefined)?.code, -32601, `${method} is not a method`);
    }
    // An unknown method of any size is named in the error cut short and escaped, never sent back whole.
    const long = `nope\u001b${'m'.repeat(1_000_000)}`;
    const r = await post(gw.url, { jsonrpc: '2.0', id: 6, method: long, params: {} }, h);
    const e = r.json?.error as { code?: number; message?: string } | undefined;
    assert.equal(e?.code, -32601, 'a long unknown method is not a method');
    assert.ok((e?.message ?? '').includes('nope\\u001bmmm'), e?.message?.slice(0, 80));
    const size = JSON.stringify(r.json ?? {}).length;
    assert.ok(size < 1000, `the answer to a 1 MB method name is ${size} bytes`);
    assert.equal(gw.proc.exitCode, null, 'the front is still running');
    assert.equal((await modernPost(gw.url, tb, 5, 'tools/call', { name: 'fix_echo', arguments: { text: 'b' } })).status, 200);
  });
});
