import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import { issueRecordedToken } from '../../src/cli/token.js';
import { loadPolicy } from '../../src/policy/load.js';
import { MALLOC_DEFAULTS } from '../../src/supervision/malloc-env.js';
import { tempDir } from './temp.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CLI = path.join(ROOT, 'dist/cli/main.js');
export const NODE_MODULES = path.join(ROOT, 'node_modules');
export const FIXTURE = path.join(ROOT, 'test/fixtures/servers/fixture.mjs');
/**
 * server-everything's entry: under the test runner, the installed package bundled into one file
 * (test/published-bundles.mjs: the same code, ~0.1 s less CPU per start); a file run alone, or a
 * bench, starts it from node_modules.
 */
export const EVERYTHING =
  process.env.LANEGATE_TEST_EVERYTHING ?? path.join(NODE_MODULES, '@modelcontextprotocol/server-everything/dist/index.js');
export const MEMORY = path.join(NODE_MODULES, '@modelcontextprotocol/server-memory/dist/index.js');

export interface RunningGateway {
  url: string;
  origin: string;
  pid: number;
  dir: string;
  policyFile: string;
  stateDir: string;
  operatorToken: string;
  proc: ResultPromise;
  stderr: () => string;
  token: (lane: string, ttl?: string) => Promise<string>;
  stop: () => Promise<void>;
}

export { tempDir };

/** Runs the CLI to completion (check, init, token issue...). */
export const cli = (args: string[], opts: { cwd?: string } = {}) =>
  execa(process.execPath, [CLI, ...args], { reject: false, cwd: opts.cwd ?? ROOT, env: { LANEGATE_LOG_LEVEL: 'warn' } });

/**
 * Starts the real gateway (`lanegate serve`) as a process on a free loopback port, with a policy
 * written into a fresh temp dir. `secrets` maps a path relative to that dir to file content.
 */
export const startGateway = async (
  policyYaml: string,
  opts: {
    secrets?: Record<string, string>;
    nodeArgs?: string[];
    env?: Record<string, string>;
    dir?: string;
    /** Extra `serve` arguments (e.g. --watch). */
    serveArgs?: string[];
    /** The policy file's path (relative to the dir), if not policy.yaml. */
    policyPath?: string;
  } = {},
): Promise<RunningGateway> => {
  const dir = opts.dir ?? tempDir('gw');
  const stateDir = path.join(dir, 'state');
  for (const [rel, content] of Object.entries(opts.secrets ?? {})) {
    const f = path.join(dir, rel);
    mkdirSync(path.dirname(f), { recursive: true });
    writeFileSync(f, content, { mode: 0o600 });
  }
  const policyFile = path.join(dir, opts.policyPath ?? 'policy.yaml');
  if (opts.policyPath === undefined) writeFileSync(policyFile, policyYaml);
  let err = '';
  let out = '';
  const proc = execa(
    process.execPath,
    [...(opts.nodeArgs ?? []), CLI, 'serve', '--policy', policyFile, '--port', '0', '--no-lane-configs', ...(opts.serveArgs ?? [])],
    {
      cwd: dir,
      reject: false,
      buffer: false,
      // As npm start and the deploy files run it (glibc's settings: malloc-env.ts).
      env: { LANEGATE_LOG_LEVEL: 'info', ...MALLOC_DEFAULTS, ...(opts.env ?? {}) },
    },
  );
  proc.stderr?.setEncoding('utf8');
  proc.stderr?.on('data', (c: string) => {
    err += c;
  });
  proc.stdout?.setEncoding('utf8');
  const url = await new Promise<string>((resolve, reject) => {
    // A gateway that has not said it serves within 30 s is killed as it is reported: left running it
    // kept its test process (and the whole run) waiting on it (seen once, on a machine under load).
    const t = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`gateway did not start within 30 s:\n${out}\n${err}`));
    }, 30_000);
    proc.stdout?.on('data', (c: string) => {
      out += c;
      const m = /serving (http:\/\/\S+\/mcp)/.exec(out);
      if (m?.[1] && (/operator token[^\n]*: (lgo_\S+)/.test(out) || opts.dir !== undefined)) {
        clearTimeout(t);
        resolve(m[1]);
      }
    });
    void proc.then(() => {
      clearTimeout(t);
      reject(new Error(`gateway exited:\n${out}\n${err}`));
    });
  });
  const operatorToken =
    /operator token[^\n]*: (lgo_\S+)/.exec(out)?.[1] ?? readFileSync(path.join(stateDir, 'keys/operator.token'), 'utf8').trim();
  const pid = proc.pid ?? 0;
  return {
    url,
    origin: new URL(url).origin,
    pid,
    dir,
    policyFile,
    stateDir,
    operatorToken,
    proc,
    stderr: () => err,
    // In-process, through the function `lanegate token issue` runs (signed and recorded alike): a CLI
    // process per token cost the suite ~120 node starts. The CLI command itself is tested in cli tests.
    token: async (lane, ttl = '1h') => {
      const loaded = loadPolicy(policyFile);
      if (!loaded.policy) throw new Error(`token issue failed: ${loaded.problems.map((p) => p.message).join('; ')}`);
      return (await issueRecordedToken(loaded.policy, lane, ttl)).token;
    },
    stop: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await proc;
    },
  };
};

/** A policy header shared by tests: node allowlisted, state in ./state. */
export const policyHead = (extra = ''): string => `version: 1
gateway:
  listen: 127.0.0.1:8750
  stateDir: ./state
${extra}
commands:
  node: { path: "{node}" }
`;

/** The operator API of a running gateway (with its operator token). */
export const operatorApi = async (gw: RunningGateway, p: string, method = 'GET'): Promise<unknown> =>
  (await fetch(gw.url.replace(/\/mcp$/, p), { method, headers: { authorization: `Bearer ${gw.operatorToken}` } })).json();

/** Runs a measure pass through the operator API and waits (at most 2 min) for it to end; a pass that passes promotes live. */
export const measurePass = async (gw: RunningGateway): Promise<void> => {
  await operatorApi(gw, '/api/measure', 'POST');
  for (let i = 0; i < 1200; i += 1) {
    const p = (await operatorApi(gw, '/api/measure')) as { running: boolean };
    if (!p.running) return;
    await new Promise((r) => setTimeout(r, 100));
  }
};

/**
 * Earns placement as an operator does: an uncapped measure pass (pre-flight + demonstration),
 * then a restart in the same directory, since placement is decided when a host starts.
 */
export const measureThenRestart = async (gw: RunningGateway): Promise<RunningGateway> => {
  await measurePass(gw);
  await gw.stop();
  return startGateway(readFileSync(gw.policyFile, 'utf8'), { dir: gw.dir });
};

/**
 * The fixture as `fix` in one shared domain for `lanes`, its sleep writing how each ended
 * ("completed" or "cancelled") to `marker`, a file of its own.
 */
export const sleepMarkerGateway = async (lanes: string[]): Promise<{ gw: RunningGateway; marker: string }> => {
  const marker = `${tempDir('marker')}/sleep.log`;
  const gw = await startGateway(`${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
  fix: { prefix: fix, domain: public, stdio: { command: node, args: ["${FIXTURE}", "--marker", "${marker}"] } }
lanes:
${lanes.map((l) => `  ${l}: { servers: [fix] }`).join('\n')}
`);
  return { gw, marker };
};

/**
 * A gateway with the fixture as `fix` in one shared domain, for `lanes` (default: a). `fix`: more
 * keys of its server entry (`callTimeout: 2s`); `limits`: the policy's gateway.limits line.
 */
export const fixtureGateway = (
  o: { lanes?: string[]; fix?: string; limits?: string; env?: Record<string, string> } = {},
): Promise<RunningGateway> =>
  startGateway(
    `${policyHead(o.limits ? `  limits: { ${o.limits} }` : '')}
trustDomains: { public: { kind: shared } }
servers:
  fix: { prefix: fix, domain: public, ${o.fix ? `${o.fix}, ` : ''}stdio: { command: node, args: ["${FIXTURE}"] } }
lanes:
${(o.lanes ?? ['a']).map((l) => `  ${l}: { servers: [fix] }`).join('\n')}
`,
    { env: o.env },
  );

/**
 * One shared domain, the fixture as `fix` with a demonstration (`probe`, YAML; by default an echo
 * of the canary), for `lanes`: fix is shared once a measurement passes.
 */
export const fixtureProbedPolicy = (lanes: string[], probe = '[{ tool: echo, args: { text: "{{canary}}" } }]'): string => `${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
  fix:
    prefix: fix
    domain: public
    stdio: { command: node, args: ["${FIXTURE}"] }
    probe: ${probe}
lanes:
${lanes.map((l) => `  ${l}: { servers: [fix] }`).join('\n')}
`;

/** One shared domain, the fixture server as `fix`, lanes a and b using it. */
export const fixtureTwoLanes = (): string => `trustDomains: { public: { kind: shared } }
servers:
  fix: { prefix: fix, domain: public, stdio: { command: node, args: ["${FIXTURE}"] } }
lanes:
  a: { servers: [fix] }
  b: { servers: [fix] }
`;

/** server-everything as the default policy declares it (under `servers:`): probed on echo and get-sum. */
export const everythingServer = (): string => `  everything:
    prefix: every
    domain: public
    stdio: { command: node, args: ["${EVERYTHING}", "stdio"] }
    probe:
      - { tool: echo, args: { message: "{{canary}}" } }
      - { tool: get-sum, args: { a: 2, b: 3 } }
`;
