import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cli, everythingServer, FIXTURE, MEMORY, policyHead, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { modernPost, textOf } from '../helpers/mcp.js';
import { waitFor } from '../helpers/procs.js';

const policy = (askerName = 'asker') => `${policyHead()}
trustDomains:
  public: { kind: shared }
  alice: { kind: principal }
servers:
${everythingServer()}  memory:
    prefix: memory
    domain: public
    stdio: { command: node, args: ["${MEMORY}"], env: { MEMORY_FILE_PATH: "{stateDir}/memory-shared.jsonl" } }
    probe:
      - { tool: create_entities, args: { entities: [{ name: "{{canary}}", entityType: probe, observations: [] }] } }
      - { tool: read_graph }
  counter:
    prefix: counter
    domain: public
    stdio: { command: node, args: ["${FIXTURE}"] }
    probe: [{ tool: count }, { tool: count }]
  notes:
    prefix: notes
    domain: public
    stdio: { command: node, args: ["${FIXTURE}", "--notes-file", "{stateDir}/notes.txt"] }
    probe: [{ tool: remember, args: { text: "{{canary}}" } }, { tool: recall }]
  vary:
    prefix: vary
    domain: public
    stdio: { command: node, args: ["${FIXTURE}", "--vary-handshake"] }
    probe: [{ tool: echo, args: { text: "{{canary}}" } }]
  asker:
    prefix: asker
    domain: public
    stdio: { command: node, args: ["${FIXTURE}", "--name", "${askerName}"] }
    # pid differs per process (noise, told apart automatically); ask answers what the client said.
    probe: [{ tool: echo, args: { text: "{{canary}}" } }, { tool: pid }, { tool: ask }]
  mailbox:
    prefix: mail
    domain: alice
    stdio: { command: node, args: ["${FIXTURE}"] }
lanes:
  a: { servers: [everything, memory, counter, notes, vary, asker, mailbox] }
  b: { servers: [everything, memory, counter, notes, vary, asker, mailbox] }
`;

interface Row {
  server: string;
  placement: string;
  strength: string;
  reasons: { code: string; grade: string; detail: string }[];
  refusedBy: { axis: string; remedy: string }[];
  coverage?: { exercised: string[]; listed: number };
  hazards: { identity: string; current: boolean; record: { codes: string[] } }[];
  identity: string;
}

describe('sharing is earned: measured, demonstrated, placed, refuted, retreated', () => {
  let gw: RunningGateway;
  let ta: string;
  let tb: string;
  const api = async (p: string, method = 'GET') =>
    (await fetch(gw.url.replace(/\/mcp$/, p), { method, headers: { authorization: `Bearer ${gw.operatorToken}` } })).json();
  const review = async (): Promise<Record<string, Row>> => {
    const r = await cli(['review', '--json', '--policy', gw.policyFile]);
    assert.equal(r.exitCode, 0, String(r.stderr));
    return Object.fromEntries((JSON.parse(String(r.stdout)) as { servers: Row[] }).servers.map((x) => [x.server, x]));
  };
  const call = async (token: string, name: string, args: Record<string, unknown> = {}) => {
    const r = await modernPost(gw.url, token, 1, 'tools/call', { name, arguments: args });
    return textOf(r.json?.result ?? {});
  };
  const restart = async (text?: string) => {
    const dir = gw.dir;
    await gw.stop();
    if (text) writeFileSync(gw.policyFile, text);
    gw = await startGateway(text ?? readFileSync(path.join(dir, 'policy.yaml'), 'utf8'), { dir });
  };

  before(async () => {
    gw = await startGateway(policy());
    ta = await gw.token('a');
    tb = await gw.token('b');
  });
  after(async () => gw.stop());

  it('an uncapped measure pass reports {running, done, measured, total} and finishes', async () => {
    const started = (await api('/api/measure', 'POST')) as { running: boolean; total: number };
    assert.equal(started.running, true);
    assert.equal(started.total, 6, 'six measurable servers: the principal-domain one is never probed');
    const end = await waitFor(
      async () => {
        const p = (await api('/api/measure')) as { running: boolean; done: number; measured: number; total: number };
        return p.running ? undefined : p;
      },
      // 111-122 s on a machine whose fresh pages are slow (it failed there at 120 s): bounded, not timed.
      240_000,
      500,
    );
    assert.deepEqual(end, { running: false, done: 6, measured: 6, total: 6 });
  });

  it('server-everything with a stateless probe is demonstrated and placed shared', async () => {
    const r = (await review()).everything;
    assert.equal(r?.strength, 'demonstrated');
    assert.equal(r?.placement, 'shared');
    assert.deepEqual(r?.coverage?.exercised, ['tools/call echo', 'tools/call get-sum']);
    assert.ok((r?.coverage?.listed ?? 0) >= 10);
    // The running host was started before the evidence: it takes the new placement live, no restart.
    const running = await waitFor(async () => {
      const live = await cli(['review', '--json', '--policy', gw.policyFile, '--url', gw.url]);
      const row = (JSON.parse(String(live.stdout)) as { servers: { server: string; live?: { runningPlacement?: string } }[] }).servers.find(
        (x) => x.server === 'everything',
      );
      return row?.live?.runningPlacement === 'shared' ? row : undefined;
    }, 10_000);
    assert.equal(running?.live?.runningPlacement, 'shared');
    const status = await cli(['status', '--policy', gw.policyFile, '--url', gw.url]);
    assert.match(String(status.stdout), /everything +shared .*\n +scope: tools\/call echo, tools\/call get-sum/);
    assert.doesNotMatch(String(status.stdout), /until its host restarts/);
  });

  it('server-memory is refuted by contamination; the review names the tool, the canary and the lane', async () => {
    const r = (await review()).memory;
    assert.equal(r?.strength, 'refuted');
    assert.equal(r?.placement, 'dedicated');
    const c = r?.reasons.find((x) => x.code === 'demonstration_refuted' && x.detail.startsWith('contamination in tools/call read_graph'));
    assert.match(c?.detail ?? '', /lane [AB] saw lane [AB]'s canary lgcanary[0-9a-f]{16}/);
    assert.ok(r?.refusedBy.some((x) => x.axis === 'statelessness'));
  });

  it('a counter is refuted by influence; a file-backed server by persistence', async () => {
    const rows = await review();
    assert.ok(
      rows.counter?.reasons.some((x) => x.code === 'demonstration_refuted' && x.detail.startsWith('influence in tools/call count')),
      JSON.stringify(rows.counter?.reasons),
    );
    assert.equal(rows.counter?.placement, 'dedicated');
    assert.ok(
      rows.notes?.reasons.some((x) => x.code === 'demonstration_refuted' && x.detail.startsWith('persistence in tools/call recall')),
      JSON.stringify(rows.notes?.reasons),
    );
    assert.equal(rows.notes?.strength, 'refuted');
  });

  it('a handshake that varies with clientInfo is a note that gates nothing', async () => {
    const r = (await review()).vary;
    const note = r?.reasons.find((x) => x.code === 'handshake_not_reproducible');
    assert.equal(note?.grade, 'note');
    assert.match(note?.detail ?? '', /capabilities|serverInfo/);
    assert.equal(r?.placement, 'shared', 'demonstrated despite the note');
  });

  it('a principal-domain server is dedicated for a structural reason and never spawned by a measurement', async () => {
    const r = (await review()).mailbox;
    assert.equal(r?.strength, 'disqualified');
    assert.equal(r?.placement, 'dedicated');
    assert.ok(r?.reasons.some((x) => x.code === 'principal_domain'));
    assert.match(r?.refusedBy.find((x) => x.axis === 'trust_domain')?.remedy ?? '', /never shares, structurally/);
    // Comparison processes run in scratch/<tag>/work/<domain>/<server>: the public domain's did, alice's never.
    const scratch = path.join(gw.stateDir, 'scratch');
    const ran = (domain: string): boolean => readdirSync(scratch).some((tag) => existsSync(path.join(scratch, tag, 'work', domain)));
    assert.ok(ran('public'), 'the pass ran scratch processes for the shared domain');
    assert.ok(!ran('alice'), 'no scratch process ran for the principal domain');
    const p = (await api('/api/processes')) as { hosts: Record<string, unknown> };
    assert.ok(!Object.keys(p.hosts).some((k) => k.startsWith('alice')), 'no principal host was started by the pass');
  });

  it('after a restart, a demonstrated server serves both lanes from ONE child', async () => {
    await restart();
    ta = await gw.token('a');
    tb = await gw.token('b');
    assert.match(await call(ta, 'every_echo', { message: 'from a' }), /from a/);
    assert.match(await call(tb, 'every_echo', { message: 'from b' }), /from b/);
    const p = (await api('/api/processes')) as {
      hosts: Record<string, { children: { server: string; placement: string; lane?: string; pid: number }[] }>;
    };
    const every = p.hosts.public?.children.filter((c) => c.server === 'everything') ?? [];
    assert.equal(every.length, 1);
    assert.equal(every[0]?.placement, 'shared');
    assert.equal(every[0]?.lane, undefined);
    assert.equal(await call(ta, 'asker_pid'), await call(tb, 'asker_pid'), 'asker is shared: same pid for both lanes');
    const mem = p.hosts.public?.children.filter((c) => c.server === 'memory') ?? [];
    assert.ok(mem.every((c) => c.placement === 'dedicated'));
  });

  it('a server-initiated request on a shared child with two lanes attached: ledger, recycle, dedicated at once', async () => {
    const sharedPid = await call(ta, 'asker_pid');
    await call(tb, 'asker_echo', { text: 'attach b' });
    const asked = await call(ta, 'asker_ask');
    assert.match(asked, /refused|error|ended|lanegate/i);
    const ledger = await waitFor(() => {
      try {
        return JSON.parse(readFileSync(path.join(gw.stateDir, 'records/observed-hazards.json'), 'utf8')) as {
          schema: number;
          servers: Record<string, { identities: Record<string, { codes: string[] }>; codes: string[] }>;
        };
      } catch {
        return undefined;
      }
    }, 5000);
    assert.equal(ledger?.schema, 1);
    const asker = ledger?.servers.asker;
    assert.deepEqual(asker?.codes, ['unroutable_server_request']);
    const rows = await review();
    assert.deepEqual(Object.keys(asker?.identities ?? {}), [rows.asker?.identity]);
    const pa = await waitFor(async () => {
      const v = await call(ta, 'asker_pid');
      return /^\d+$/.test(v) ? v : undefined;
    }, 5000);
    const pb = await call(tb, 'asker_pid');
    assert.notEqual(pa, sharedPid);
    assert.notEqual(pa, pb, 'each lane now has its own child');
    assert.equal(rows.asker?.strength, 'refuted');
  });

  it('after a restart of lanegate it stays dedicated', async () => {
    await restart();
    ta = await gw.token('a');
    tb = await gw.token('b');
    assert.notEqual(await call(ta, 'asker_pid'), await call(tb, 'asker_pid'));
    assert.equal(await call(ta, 'every_echo', { message: 'x' }).then(() => 'ok'), 'ok');
  });

  it('editing its args gives a new identity that reads as unobserved; the old record stays in the file', async () => {
    const before = (await review()).asker;
    await gw.stop();
    writeFileSync(gw.policyFile, policy('asker2'));
    const after = (await review()).asker;
    assert.notEqual(after?.identity, before?.identity);
    assert.ok(!after?.reasons.some((x) => x.code === 'observed_hazard'), 'the new launch has no hazard of its own');
    assert.ok(
      after?.hazards.some((h) => !h.current && h.identity === before?.identity),
      "the old identity's record is still shown",
    );
    const file = JSON.parse(readFileSync(path.join(gw.stateDir, 'records/observed-hazards.json'), 'utf8')) as {
      servers: Record<string, { identities: Record<string, unknown> }>;
    };
    assert.ok(before?.identity && file.servers.asker?.identities[before.identity], 'the record stays in the file');
    gw = await startGateway(policy('asker2'), { dir: gw.dir });
  });
});
