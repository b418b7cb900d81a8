import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { FIXTURE, policyHead, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { modernPost, textOf } from '../helpers/mcp.js';
import { waitFor } from '../helpers/procs.js';

const POLICY = `${policyHead()}
trustDomains:
  public: { kind: shared }
servers:
  good: { prefix: good, domain: public, stdio: { command: node, args: ["${FIXTURE}", "--name", "good"] } }
  bad: { prefix: bad, domain: public, stdio: { command: node, args: ["${FIXTURE}", "--poison"] } }
  crashy: { prefix: crashy, domain: public, stdio: { command: node, args: ["${FIXTURE}", "--name", "crashy"] } }
  drifty:
    prefix: drifty
    domain: public
    stdio: { command: node, args: ["${FIXTURE}", "--name", "drifty"] }
    expect: { version: "1.4.2", tools: [echo, pid] }
    onDrift: withhold
  reported:
    prefix: reported
    domain: public
    stdio: { command: node, args: ["${FIXTURE}", "--name", "reported"] }
    expect: { version: "1.4.2" }
lanes:
  full: { servers: [good, bad, crashy, drifty, reported] }
  seeker: { servers: [good, crashy], catalog: search }
`;

interface Status {
  summary: string;
  servers: { server: string; state: string; reason?: string; remedy?: string; drift?: string; tools?: number }[];
}

describe('no silent absence, bounded context, declared inventory', () => {
  let gw: RunningGateway;
  let full: string;
  let seeker: string;
  const call = async (token: string, name: string, args: Record<string, unknown> = {}) => {
    const r = await modernPost(gw.url, token, 1, 'tools/call', { name, arguments: args });
    const result = (r.json?.result ?? {}) as { isError?: boolean; structuredContent?: unknown };
    return { status: r.status, text: textOf(result), isError: result.isError === true, structured: result.structuredContent };
  };
  const list = async (token: string) => {
    const r = await modernPost(gw.url, token, 1, 'tools/list');
    return ((r.json?.result as { tools?: { name: string }[] } | undefined)?.tools ?? []).map((t) => t.name);
  };
  const status = async (): Promise<Record<string, Status['servers'][number]>> => {
    const s = (await call(full, 'lanegate_status')).structured as Status;
    return Object.fromEntries(s.servers.map((x) => [x.server, x]));
  };

  before(async () => {
    gw = await startGateway(POLICY);
    full = await gw.token('full');
    seeker = await gw.token('seeker');
  });
  after(async () => gw.stop());

  it('every full catalog carries lanegate_status; refused and withheld upstreams are not listed', async () => {
    const names = await list(full);
    assert.ok(names.includes('lanegate_status'));
    assert.ok(names.includes('good_echo') && names.includes('reported_echo'));
    assert.ok(!names.some((n) => n.startsWith('bad_') || n.startsWith('drifty_')), names.join(','));
  });

  it('lanegate_status names what is missing, why, and the fix', async () => {
    const s = await status();
    assert.equal(s.good?.state, 'serving');
    assert.equal(s.bad?.state, 'missing');
    assert.match(s.bad?.reason ?? '', /refused by the guard/);
    assert.match(s.bad?.remedy ?? '', /lanegate trust bad --tool echo --reviewed-by <you>/);
    assert.equal(s.drifty?.state, 'missing');
    assert.match(s.drifty?.reason ?? '', /expected version 1\.4\.2 per policy, server reports 1\.0\.0/);
    assert.match(s.drifty?.reason ?? '', /undeclared tools: ask, count, crash/);
    assert.equal(s.reported?.state, 'serving', 'onDrift: report keeps serving');
    assert.match(s.reported?.drift ?? '', /inventory drift in "reported"/);
  });

  it('a crashed upstream shows as missing with its remedy, and a call says why', async () => {
    const crash = await call(full, 'crashy_crash');
    assert.equal(crash.isError, true);
    const s = await status();
    assert.equal(s.crashy?.state, 'missing', JSON.stringify(s.crashy));
    assert.match(s.crashy?.reason ?? '', /crashed|restarting|ended/);
    assert.match(s.crashy?.remedy ?? '', /restarts automatically/);
  });

  it('a call to an absent upstream names the upstream, the reason and the remedy', async () => {
    const r = await call(full, 'drifty_echo', { text: 'x' });
    assert.equal(r.isError, true);
    assert.match(r.text, /upstream "drifty" withheld: inventory drift in "drifty": expected version 1\.4\.2 per policy/);
    assert.match(r.text, /servers\.drifty\.expect/);
  });

  it('catalog: search serves exactly two tools, finds by meaning, and calls with the same checks', async () => {
    assert.deepEqual((await list(seeker)).sort(), ['lanegate_call', 'lanegate_search']);
    const found = (await call(seeker, 'lanegate_search', { query: 'echo the text back' })).structured as {
      hits: { name: string; inputSchema: unknown }[];
    };
    assert.deepEqual(
      found.hits
        .slice(0, 2)
        .map((h) => h.name)
        .sort(),
      ['crashy_echo', 'good_echo'],
      'the two echo tools rank first',
    );
    const pid = (await call(seeker, 'lanegate_search', { query: 'which process id serves this' })).structured as {
      hits: { name: string }[];
    };
    assert.match(pid.hits[0]?.name ?? '', /_pid$/);
    assert.ok(found.hits[0]?.inputSchema);
    assert.ok(!found.hits.some((h) => h.name.startsWith('bad_')), "search sees only this lane's catalog");
    assert.equal((await call(seeker, 'lanegate_call', { name: 'good_echo', arguments: { text: 'via call' } })).text, 'via call');
    const other = await call(seeker, 'lanegate_call', { name: 'reported_echo', arguments: {} });
    assert.equal(other.status, 403, 'the same loadout check as a direct call');
    const status = await call(seeker, 'lanegate_call', { name: 'lanegate_status' });
    assert.match(status.text, /configured servers/);
  });

  it('accepting the new inventory (expect updated, reload) clears the drift everywhere, without a restart', async () => {
    writeFileSync(gw.policyFile, POLICY.replace('expect: { version: "1.4.2" }', 'expect: { version: "1.0.0" }'));
    process.kill(gw.pid, 'SIGHUP');
    const cleared = await waitFor(
      async () => {
        await list(full); // the reloaded child starts and reports a matching inventory
        const s = await status();
        return s.reported?.state === 'serving' && s.reported.drift === undefined ? s : undefined;
      },
      15_000,
      200,
    );
    assert.ok(cleared, 'lanegate_status drops the old drift line');
    const api = (await (
      await fetch(gw.url.replace(/\/mcp$/, '/api/servers'), { headers: { authorization: `Bearer ${gw.operatorToken}` } })
    ).json()) as { servers: { server: string; drift?: string }[] };
    assert.equal(api.servers.find((x) => x.server === 'reported')?.drift, undefined, '/api/servers too');
    assert.match(api.servers.find((x) => x.server === 'drifty')?.drift ?? '', /inventory drift in "drifty"/, 'the other drift stays');
  });
});
