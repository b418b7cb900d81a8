import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { cli, FIXTURE, policyHead, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { modernPost, post, textOf } from '../helpers/mcp.js';
import { alive, sleep, waitFor } from '../helpers/procs.js';

const policy = (aServers: string, withC: boolean) => `${policyHead()}
trustDomains:
  public: { kind: shared }
servers:
  good: { prefix: good, domain: public, stdio: { command: node, args: ["${FIXTURE}", "--name", "good"] } }
  other: { prefix: other, domain: public, stdio: { command: node, args: ["${FIXTURE}", "--name", "other"] } }
lanes:
  a: { servers: [${aServers}] }
  b: { servers: [good] }
${withC ? '  c: { servers: [good] }\n' : ''}`;

describe('hot reload', () => {
  let gw: RunningGateway;
  let ta: string;
  let tb: string;
  let tc: string;
  const tools = async (t: string) =>
    (((await modernPost(gw.url, t, 1, 'tools/list')).json?.result as { tools?: { name: string }[] } | undefined)?.tools ?? []).map(
      (x) => x.name,
    );
  const call = async (t: string, name: string, args: Record<string, unknown> = {}) => {
    const r = await modernPost(gw.url, t, 1, 'tools/call', { name, arguments: args });
    return {
      status: r.status,
      text: textOf(r.json?.result ?? {}),
      isError: (r.json?.result as { isError?: boolean } | undefined)?.isError === true,
    };
  };

  before(async () => {
    gw = await startGateway(policy('good', true));
    [ta, tb, tc] = await Promise.all([gw.token('a'), gw.token('b'), gw.token('c')]);
  });
  after(async () => gw.stop());

  it('a loadout change applies while another lane streams calls without an error; a removed lane is cut off at once', async () => {
    const bPid = (await call(tb, 'good_pid')).text;
    const init = await post(
      gw.url,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
      },
      { authorization: `Bearer ${tc}` },
    );
    const cSession = init.headers.get('mcp-session-id') ?? '';
    assert.ok(!(await tools(ta)).includes('other_echo'));
    let streaming = true;
    const failures: string[] = [];
    let calls = 0;
    const stream = (async () => {
      for (let i = 0; i < 2000 && streaming; i += 1) {
        const r = await call(tb, 'good_echo', { text: `n${i}` });
        calls += 1;
        if (r.status !== 200 || r.isError || r.text !== `n${i}`) failures.push(`${r.status} ${r.text}`);
        await sleep(5);
      }
    })();
    await sleep(150);
    writeFileSync(gw.policyFile, policy('good, other', false));
    process.kill(gw.pid, 'SIGHUP');
    const applied = await waitFor(async () => (await tools(ta)).includes('other_echo'), 10_000, 50);
    // Keep lane b streaming well past the reload, however slow this machine is right now.
    const afterReload = calls;
    await waitFor(() => calls >= afterReload + 15, 20_000, 20);
    streaming = false;
    await stream;
    assert.ok(applied, 'lane a sees the server added to its loadout');
    assert.equal((await call(ta, 'other_echo', { text: 'new' })).text, 'new');
    assert.deepEqual(failures, [], `lane b's calls during the reload all succeeded (${calls} calls)`);
    assert.ok(calls > 20, `lane b streamed through the reload (${calls} calls)`);
    assert.equal((await call(tb, 'good_pid')).text, bPid, 'the unaffected lane kept its child process');
    const cut = await modernPost(gw.url, tc, 1, 'tools/list');
    assert.equal(cut.status, 401, 'a removed lane is refused at once');
    const old = await post(
      gw.url,
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { authorization: `Bearer ${tc}`, 'mcp-session-id': cSession },
    );
    assert.equal(old.status, 401);
  });

  it('a lane removed by reload loses its children at once, and a crash never restarts one for it', async () => {
    writeFileSync(gw.policyFile, policy('good, other', true));
    process.kill(gw.pid, 'SIGHUP');
    tc = await gw.token('c');
    await waitFor(async () => (await call(tc, 'good_pid')).status === 200, 10_000, 100);
    const cPid = Number((await call(tc, 'good_pid')).text);
    assert.ok(alive(cPid));
    writeFileSync(gw.policyFile, policy('good, other', false));
    process.kill(gw.pid, 'SIGHUP');
    assert.equal(await waitFor(() => !alive(cPid), 10_000, 50), true, "lane c's child stopped at the reload, not at its idle timeout");
    await sleep(1500);
    const procs = (await (
      await fetch(gw.url.replace(/\/mcp$/, '/api/processes'), { headers: { authorization: `Bearer ${gw.operatorToken}` } })
    ).json()) as { hosts: Record<string, { children: { lane?: string }[] }> };
    assert.ok(!Object.values(procs.hosts).some((h) => h.children.some((c) => c.lane === 'c')), 'nothing runs for the removed lane');
  });

  it('an invalid policy is refused with its errors and the old one keeps serving', async () => {
    writeFileSync(gw.policyFile, `${policy('good, other', false)}\n  broken: { servers: [nope] }\n`);
    const r = await cli(['reload', '--policy', gw.policyFile, '--url', gw.url]);
    assert.notEqual(r.exitCode, 0);
    assert.match(String(r.stderr), /server "nope" is not declared/);
    process.kill(gw.pid, 'SIGHUP');
    const logged = await waitFor(() => /reload refused/.test(gw.stderr()), 5000);
    assert.ok(logged, 'the refusal is logged');
    assert.ok((await tools(ta)).includes('other_echo'), 'the running policy still serves');
    writeFileSync(gw.policyFile, policy('good', false));
    const ok = await cli(['reload', '--policy', gw.policyFile, '--url', gw.url]);
    assert.equal(ok.exitCode, 0, String(ok.stderr));
    assert.match(String(ok.stdout), /reloaded/);
    assert.ok(!(await tools(ta)).includes('other_echo'));
  });
});
