import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { FIXTURE, MEMORY, policyHead, type RunningGateway, startGateway, tempDir } from '../helpers/gateway.js';
import { modernPost, textOf } from '../helpers/mcp.js';
import { alive, environOf, heapSnapshot, waitFor } from '../helpers/procs.js';
import { MALLOC_DEFAULTS } from '../../src/supervision/malloc-env.js';

const canary = (label: string): string => `CANARY-${label}-${randomBytes(12).toString('hex')}`;
const ORG = canary('org');
const MAIL_A = canary('mail-a');
const MAIL_B = canary('mail-b');
const fp = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, 16);

const POLICY = `${policyHead()}
trustDomains:
  org: { kind: shared, secrets: { ORG_TOKEN: { file: ./secrets/org.token } } }
  alice: { kind: principal, secrets: { MAIL_TOKEN: { file: "./secrets/mail-{lane}.token" } } }
  public: { kind: shared }
servers:
  orgfix: { prefix: org, domain: org, stdio: { command: node, args: ["${FIXTURE}", "--env-var", "ORG_TOKEN"] } }
  mailfix: { prefix: mail, domain: alice, stdio: { command: node, args: ["${FIXTURE}", "--env-var", "MAIL_TOKEN"] } }
  memory:
    prefix: memory
    domain: public
    stdio: { command: node, args: ["${MEMORY}"], env: { MEMORY_FILE_PATH: "{stateDir}/memory-{lane}.jsonl" } }
lanes:
  a: { servers: [orgfix, mailfix, memory] }
  b: { servers: [orgfix, mailfix, memory] }
`;

interface Procs {
  front: number;
  hosts: Record<string, { pid: number; children: { server: string; lane?: string; pid: number }[] }>;
}

describe('trust domains are process boundaries', () => {
  let gw: RunningGateway;
  let ta: string;
  let tb: string;
  const diag = tempDir('heap');
  mkdirSync(diag, { recursive: true });

  const call = async (token: string, name: string, args: Record<string, unknown> = {}): Promise<{ text: string; isError: boolean }> => {
    const r = await modernPost(gw.url, token, 1, 'tools/call', { name, arguments: args });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    const result = r.json?.result as { isError?: boolean };
    return { text: textOf(result), isError: result.isError === true };
  };
  const procs = async (): Promise<Procs> => {
    const r = await fetch(gw.url.replace(/\/mcp$/, '/api/processes'), { headers: { authorization: `Bearer ${gw.operatorToken}` } });
    return (await r.json()) as Procs;
  };

  before(async () => {
    gw = await startGateway(POLICY, {
      secrets: { 'secrets/org.token': ORG, 'secrets/mail-a.token': MAIL_A, 'secrets/mail-b.token': MAIL_B },
      nodeArgs: ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${diag}`],
    });
    ta = await gw.token('a');
    tb = await gw.token('b');
  });
  after(async () => gw.stop());

  it('each lane reaches its own principal credential and the shared domain credential', async () => {
    assert.equal((await call(ta, 'mail_secret_fingerprint')).text, fp(MAIL_A));
    assert.equal((await call(tb, 'mail_secret_fingerprint')).text, fp(MAIL_B));
    assert.equal((await call(ta, 'org_secret_fingerprint')).text, fp(ORG));
    assert.equal((await call(tb, 'org_secret_fingerprint')).text, fp(ORG));
  });

  it('the front holds no upstream secret: not in its environment, not in its heap', async () => {
    const env = environOf(gw.pid);
    for (const c of [ORG, MAIL_A, MAIL_B]) assert.ok(!env.includes(c), 'front environ is clean');
    const heap = await heapSnapshot(gw.pid, diag);
    assert.ok(heap.length > 100_000, 'a real heap snapshot');
    for (const c of [ORG, MAIL_A, MAIL_B]) assert.ok(!heap.includes(c), `front heap holds no ${c.split('-')[1]} canary`);
    // Nor the policy's parsers: init and the validation ran in a child (src/cli/init-step.ts). The
    // names of loaded classes are in a snapshot: the front's own correlation table shows it can see one.
    assert.ok(heap.includes('"Correlation"'), "the snapshot names the front's own classes");
    for (const name of ['YAMLParseError', 'ZodError']) assert.ok(!heap.includes(`"${name}"`), `the front never loaded ${name}`);
  });

  it("a host holds only its own domain's secrets (environment and heap)", async () => {
    const p = await procs();
    const keys = Object.keys(p.hosts).sort();
    assert.deepEqual(keys, ['alice@a', 'alice@b', 'org', 'public']);
    const forbidden: Record<string, string[]> = {
      org: [MAIL_A, MAIL_B],
      public: [ORG, MAIL_A, MAIL_B],
      'alice@a': [ORG, MAIL_B],
      'alice@b': [ORG, MAIL_A],
    };
    const own: Record<string, string | undefined> = { org: ORG, 'alice@a': MAIL_A, 'alice@b': MAIL_B, public: undefined };
    for (const key of keys) {
      const h = p.hosts[key];
      assert.ok(h);
      const env = environOf(h.pid);
      for (const c of [ORG, MAIL_A, MAIL_B]) assert.ok(!env.includes(c), `${key} host environ holds no secret`);
      // glibc's settings reach every host (malloc-env.ts): large answers reuse memory instead of faulting it in.
      for (const [k, v] of Object.entries(MALLOC_DEFAULTS))
        assert.ok(env.split('\0').includes(`${k}=${v}`), `${key} host runs with ${k}=${v}`);
      const heap = await heapSnapshot(h.pid, diag);
      for (const c of forbidden[key] ?? []) assert.ok(!heap.includes(c), `${key} heap must not hold another domain's secret`);
      const mine = own[key];
      if (mine) assert.ok(heap.includes(mine), `${key} heap does hold its own secret (the check can see one)`);
      for (const child of h.children) {
        const cenv = environOf(child.pid);
        for (const c of forbidden[key] ?? []) assert.ok(!cenv.includes(c), `${key}/${child.server} child environ is clean`);
      }
    }
  });

  it('server-memory: each lane gets its own child; what lane a writes, lane b cannot see', async () => {
    const entity = `entity-${randomBytes(6).toString('hex')}`;
    const created = await call(ta, 'memory_create_entities', {
      entities: [{ name: entity, entityType: 'test', observations: ['secret plan of a'] }],
    });
    assert.equal(created.isError, false, created.text);
    assert.match((await call(ta, 'memory_read_graph')).text, new RegExp(entity));
    const seenByB = await call(tb, 'memory_read_graph');
    assert.equal(seenByB.isError, false);
    assert.ok(!seenByB.text.includes(entity), "lane b must not see lane a's entity");
    const mem = (await procs()).hosts.public?.children.filter((c) => c.server === 'memory') ?? [];
    assert.equal(mem.length, 2);
    assert.notEqual(mem[0]?.pid, mem[1]?.pid);
    assert.deepEqual(mem.map((c) => c.lane).sort(), ['a', 'b']);
  });

  it('a killed upstream child fails loudly, others keep answering, then it recovers', async () => {
    const pidBefore = Number((await call(ta, 'org_pid')).text);
    process.kill(pidBefore, 'SIGKILL');
    await waitFor(() => !alive(pidBefore), 5000);
    const during = await call(ta, 'org_echo', { text: 'x' });
    assert.equal(during.isError, true);
    assert.match(during.text, /upstream "orgfix"/);
    assert.match(during.text, /crash|ended|restart/);
    assert.equal((await call(ta, 'mail_echo', { text: 'still here' })).text, 'still here');
    assert.equal((await call(tb, 'org_echo', { text: 'other lane' })).text, 'other lane');
    const recovered = await waitFor(
      async () => {
        const r = await call(ta, 'org_echo', { text: 'back' });
        return r.isError ? undefined : r.text;
      },
      10_000,
      200,
    );
    assert.equal(recovered, 'back');
    assert.notEqual(Number((await call(ta, 'org_pid')).text), pidBefore);
  });

  it('SIGKILL of the front leaves no host or upstream process behind', async () => {
    const p = await procs();
    const pids = Object.values(p.hosts).flatMap((h) => [h.pid, ...h.children.map((c) => c.pid)]);
    assert.ok(pids.length >= 8, `hosts and children are running (${pids.length})`);
    process.kill(gw.pid, 'SIGKILL');
    const gone = await waitFor(() => pids.every((pid) => !alive(pid)), 8000, 100);
    assert.ok(gone, `still alive: ${pids.filter(alive).join(',')}`);
  });
});
