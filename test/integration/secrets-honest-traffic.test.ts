import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EVERYTHING, FIXTURE, MEMORY, NODE_MODULES, policyHead, ROOT, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { modernPost } from '../helpers/mcp.js';

const FILESYSTEM = path.join(NODE_MODULES, '@modelcontextprotocol/server-filesystem/dist/index.js');
const CONFORMANCE = path.join(ROOT, 'test/fixtures/servers/conformance-fixture.mjs');
const MAILBOX = path.join(ROOT, 'dist/demo/mailbox-server.js');
const ROOTDIR = mkdtempSync(path.join(tmpdir(), 'lanegate-secrets-fs-'));

/** Tools that wait on the lane (sampling, elicitation, minutes of progress): not honest one-shot traffic. */
const SKIP = new Set(['every_trigger-long-running-operation', 'every_simulate-research-query', 'fix_sleep', 'fix_crash', 'fix_ask']);

/** What the suite's tests send, where they send something particular; the rest get arguments made from the schema. */
const ARGS: Record<string, Record<string, unknown>> = {
  every_echo: { message: 'hello from lane a' },
  'every_get-sum': { a: 2, b: 3 },
  'every_get-annotated-message': { messageType: 'error', includeImage: true },
  'every_get-structured-content': { location: 'New York' },
  memory_create_entities: {
    entities: [{ name: 'lanegate', entityType: 'project', observations: ['routes calls by prefix', 'token budget 4096'] }],
  },
  memory_create_relations: { relations: [{ from: 'lanegate', to: 'lanegate', relationType: 'depends on' }] },
  memory_add_observations: { observations: [{ entityName: 'lanegate', contents: ['api key rotation is documented'] }] },
  memory_search_nodes: { query: 'lanegate' },
  memory_open_nodes: { names: ['lanegate'] },
  fs_write_file: {
    path: path.join(ROOTDIR, 'notes.md'),
    content: '# Notes\nDATABASE_URL is set in the deploy env; see docs.\nbuild 7f3a9c2\n',
  },
  fs_read_text_file: { path: path.join(ROOTDIR, 'notes.md') },
  fs_read_file: { path: path.join(ROOTDIR, 'notes.md') },
  fs_read_multiple_files: { paths: [path.join(ROOTDIR, 'notes.md')] },
  fs_edit_file: { path: path.join(ROOTDIR, 'notes.md'), edits: [{ oldText: 'build 7f3a9c2', newText: 'build 8e4b0d3' }], dryRun: true },
  fs_create_directory: { path: path.join(ROOTDIR, 'sub') },
  fs_list_directory: { path: ROOTDIR },
  fs_list_directory_with_sizes: { path: ROOTDIR },
  fs_directory_tree: { path: ROOTDIR },
  fs_move_file: { source: path.join(ROOTDIR, 'sub'), destination: path.join(ROOTDIR, 'sub2') },
  fs_search_files: { path: ROOTDIR, pattern: 'notes' },
  fs_get_file_info: { path: path.join(ROOTDIR, 'notes.md') },
  fs_read_media_file: { path: path.join(ROOTDIR, 'notes.md') },
  fix_echo: { text: 'plain text' },
};

/** Arguments made from an input schema: its examples and defaults, else a plain value of each required type. */
const argsFor = (schema: Record<string, unknown> | undefined): Record<string, unknown> => {
  const props = (schema?.properties ?? {}) as Record<string, Record<string, unknown>>;
  const out: Record<string, unknown> = {};
  for (const name of (schema?.required ?? []) as string[]) {
    const p = props[name] ?? {};
    const t = Array.isArray(p.type) ? p.type[0] : p.type;
    out[name] =
      p.default ??
      (Array.isArray(p.examples) ? p.examples[0] : undefined) ??
      (Array.isArray(p.enum) ? p.enum[0] : undefined) ??
      (t === 'number' || t === 'integer' ? 1 : t === 'boolean' ? false : t === 'array' ? [] : t === 'object' ? {} : 'sample');
  }
  return out;
};

/**
 * False positives, measured: every tool, prompt and resource of the real servers the suite runs
 * (server-everything, server-memory, server-filesystem, the fixtures, the demo mailbox) called
 * through the gateway with the arguments tests use, under the default policy (block both ways).
 * Honest traffic must never be refused for a secret, and nothing may be counted.
 */
describe('secret scanning on honest traffic', () => {
  let gw: RunningGateway;
  let token: string;
  let id = 0;
  const refusals: string[] = [];
  let calls = 0;
  let answered = 0;
  const rpc = async (method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> => {
    id += 1;
    const r = await modernPost(gw.url, token, id, method, params);
    calls += 1;
    const err = r.json?.error as { code: number; message: string } | undefined;
    if (err?.code === -32030) refusals.push(`${method} ${String(params.name ?? params.uri)}: ${err.message}`);
    const result = r.json?.result as Record<string, unknown> | undefined;
    if (result && result.isError !== true) answered += 1;
    return (r.json?.result ?? {}) as Record<string, unknown>;
  };

  before(async () => {
    gw = await startGateway(
      `${policyHead()}
trustDomains:
  public: { kind: shared }
  alice-mail: { kind: principal, secrets: { MAILBOX_TOKEN: { file: "./secrets/mailbox-{lane}.token" } } }
servers:
  everything: { prefix: every, domain: public, stdio: { command: node, args: ["${EVERYTHING}", "stdio"] } }
  memory: { prefix: memory, domain: public, stdio: { command: node, args: ["${MEMORY}"], env: { MEMORY_FILE_PATH: "{stateDir}/memory-{lane}.jsonl" } } }
  fs: { prefix: fs, domain: public, stdio: { command: node, args: ["${FILESYSTEM}", "${ROOTDIR}"] } }
  fix: { prefix: fix, domain: public, stdio: { command: node, args: ["${FIXTURE}"] } }
  conf: { prefix: conf, domain: public, stdio: { command: node, args: ["${CONFORMANCE}"] } }
  mail: { prefix: mail, domain: alice-mail, stdio: { command: node, args: ["${MAILBOX}"] } }
lanes:
  a: { servers: [everything, memory, fs, fix, conf, mail] }
`,
      { secrets: { 'secrets/mailbox-a.token': 'mbx-Jd83KqLz0Pw5Rt7Vn2Xc\n' } },
    );
    token = await gw.token('a');
  });
  after(async () => {
    await gw?.stop();
  });

  it('calls every tool, prompt and resource with 0 secret refusals and 0 secret events', { timeout: 120_000 }, async () => {
    const tools = ((await rpc('tools/list', {})).tools ?? []) as { name: string; inputSchema?: Record<string, unknown> }[];
    assert.ok(tools.length >= 30, `the servers listed ${tools.length} tools`);
    const order = (n: string): number => (n === 'fs_write_file' || n === 'memory_create_entities' ? 0 : n.startsWith('fs_move') ? 2 : 1);
    for (const t of [...tools].sort((x, y) => order(x.name) - order(y.name))) {
      if (SKIP.has(t.name) || t.name.startsWith('conf_test_elicitation') || t.name.includes('sampling')) continue;
      await rpc('tools/call', { name: t.name, arguments: ARGS[t.name] ?? argsFor(t.inputSchema) });
    }
    const prompts = ((await rpc('prompts/list', {})).prompts ?? []) as { name: string; arguments?: { name: string }[] }[];
    for (const p of prompts) {
      const args = Object.fromEntries((p.arguments ?? []).map((a) => [a.name, a.name === 'resourceId' ? '1' : 'sample']));
      await rpc('prompts/get', { name: p.name, arguments: args });
    }
    const resources = ((await rpc('resources/list', {})).resources ?? []) as { uri: string }[];
    for (const r of resources.slice(0, 40)) await rpc('resources/read', { uri: r.uri });
    // Most calls must be answered for real (an answer is what the scan reads), not refused for bad arguments.
    assert.ok(calls > 60 && answered > 50, `honest calls made: ${calls}, answered: ${answered}`);
    console.log(`# honest traffic: ${calls} requests, ${answered} answered, ${refusals.length} refused for a secret`);
    assert.deepEqual(refusals, []);
    const metrics = await (
      await fetch(gw.url.replace(/\/mcp$/, '/metrics'), { headers: { authorization: `Bearer ${gw.operatorToken}` } })
    ).text();
    assert.deepEqual(
      metrics.split('\n').filter((l) => l.startsWith('lanegate_secret_blocks_total{')),
      [],
      'no secret event of any kind (blocked, redacted or logged) on honest traffic',
    );
  });
});
