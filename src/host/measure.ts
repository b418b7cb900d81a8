import type { PreflightOutcome } from '../link/reports.js';
import { randomBytes } from 'node:crypto';
import type { ProbeStepConfig } from '../policy/model.js';
import type { DemonstrationResult } from '../records/verdicts.js';
import { judgeDemonstration, substitute } from '../shareability/demonstration.js';
import { declaresCallerIdentity, degradationsOf, divergentFacets, facetsOf } from '../shareability/facets.js';
import type { Surface } from '../guard/scanner.js';
import type { UpstreamConn } from '../upstream/conn.js';
import { fetchSurface } from './surface-fetch.js';
import { CALLER_IDENTITY_EXT, CALLER_META } from '../link/config.js';
import type { ServerConfig } from '../policy/model.js';
import { ERR, RpcFailure } from '../rpc/jsonrpc.js';

export type Spawn = (tag: string, clientInfo?: { name: string; version: string }) => Promise<UpstreamConn>;

const listTools = async (c: UpstreamConn, timeoutMs: number): Promise<Record<string, unknown>[]> =>
  c.init.capabilities.tools === undefined
    ? []
    : (((await c.request('tools/list', undefined, timeoutMs)).tools as Record<string, unknown>[] | undefined) ?? []);

/**
 * Pre-flight (seed 000): two spawns with two caller identities, their replayed handshakes
 * compared facet by facet. No tool call. `ran: false` means "could not ask", not "answered no".
 */
export const preflight = async (spawn: Spawn, timeoutMs: number): Promise<PreflightOutcome> => {
  const conns: UpstreamConn[] = [];
  try {
    const a = await spawn('preflight-1', { name: 'lanegate-preflight-alpha', version: '1.0.0' });
    conns.push(a);
    const b = await spawn('preflight-2', { name: 'lanegate-preflight-beta', version: '2.0.0' });
    conns.push(b);
    const [ta, tb] = await Promise.all([listTools(a, timeoutMs), listTools(b, timeoutMs)]);
    const divergent = divergentFacets(facetsOf(a.init, ta), facetsOf(b.init, tb));
    const version = a.init.serverInfo.version;
    return {
      ran: true,
      callerSensitive: divergent.length > 0,
      divergent,
      declaresCallerIdentity: declaresCallerIdentity(a.init.capabilities, CALLER_IDENTITY_EXT),
      degradations: degradationsOf(a.init.capabilities),
      ...(typeof version === 'string' ? { reportedVersion: version } : {}),
    };
  } catch (e) {
    return {
      ran: false,
      callerSensitive: false,
      divergent: [],
      declaresCallerIdentity: false,
      degradations: [],
      error: e instanceof Error ? e.message.slice(0, 200) : 'could not ask',
    };
  } finally {
    await Promise.all(conns.map((c) => c.stop()));
  }
};

const canary = (): string => `lgcanary${randomBytes(8).toString('hex')}`;

/** How many items (tools, prompts, resources) a server lists: the denominator of coverage. */
const countListed = async (c: UpstreamConn, timeoutMs: number): Promise<number> => {
  const caps = c.init.capabilities as { tools?: unknown; prompts?: unknown; resources?: unknown };
  const count = async (has: unknown, method: string, field: string): Promise<number> =>
    has === undefined
      ? 0
      : (((await c.request(method, undefined, timeoutMs).catch((): Record<string, unknown> => ({})))[field] as unknown[] | undefined)
          ?.length ?? 0);
  const n = await Promise.all([
    count(caps.tools, 'tools/list', 'tools'),
    count(caps.prompts, 'prompts/list', 'prompts'),
    count(caps.resources, 'resources/list', 'resources'),
  ]);
  return n[0] + n[1] + n[2];
};

/** The params of one probe step for one lane: its arguments with the lane's canary in them. */
const stepParams = (step: ProbeStepConfig, value: string): Record<string, unknown> =>
  step.method === 'resources/read' ? { uri: substitute(step.name, value) } : { name: step.name, arguments: substitute(step.args, value) };

/**
 * The demonstration (seed 002): two solo baselines as lane A, each on a FRESH process (what differs
 * between them is noise); ONE fresh process serving lanes A and B in lockstep with distinct
 * canaries; then a restart and lane C. Only the probe the policy names is ever run. The caller
 * block reaches the server only if it advertises the extension.
 */
export const demonstrate = async (spawn: Spawn, probe: ProbeStepConfig[], timeoutMs: number): Promise<DemonstrationResult> => {
  const canaries = { base: canary(), base2: canary(), a: canary(), b: canary(), c: canary() };
  const conns: UpstreamConn[] = [];
  const run = async (c: UpstreamConn, lane: string, value: string, i: number): Promise<unknown> => {
    const step = probe[i] as ProbeStepConfig;
    const declares = declaresCallerIdentity(c.init.capabilities, CALLER_IDENTITY_EXT);
    const params = { ...stepParams(step, value), ...(declares ? { _meta: { [CALLER_META]: { lane } } } : {}) };
    return c.request(step.method, params, timeoutMs).catch((e: unknown) => ({ error: e instanceof Error ? e.message : 'failed' }));
  };
  const fresh = async (tag: string): Promise<UpstreamConn> => {
    const c = await spawn(tag);
    conns.push(c);
    return c;
  };
  let listed = 0;
  /** One lane alone on a fresh process; the first one also counts what the server lists (before any call). */
  const solo = async (tag: string, lane: string, value: string, count = false): Promise<unknown[]> => {
    const c = await fresh(tag);
    if (count) listed = await countListed(c, timeoutMs);
    const out: unknown[] = [];
    for (let i = 0; i < probe.length; i += 1) out.push(await run(c, lane, value, i));
    await c.stop();
    return out;
  };
  try {
    const base = await solo('demo-baseline', 'probe-a', canaries.base, true);
    const base2 = await solo('demo-baseline-2', 'probe-a', canaries.base2);
    const x = await fresh('demo-shared');
    const a: unknown[] = [];
    const b: unknown[] = [];
    for (let i = 0; i < probe.length; i += 1) {
      const [ra, rb] = await Promise.all([run(x, 'probe-a', canaries.a, i), run(x, 'probe-b', canaries.b, i)]);
      a.push(ra);
      b.push(rb);
    }
    await x.stop();
    const c = await solo('demo-restart', 'probe-c', canaries.c);
    return judgeDemonstration({ probe, canaries, base, base2, a, b, c, listed });
  } catch (e) {
    return {
      ran: false,
      passed: false,
      refutations: [],
      notes: [],
      coverage: { exercised: [], listed: 0 },
      scope: [],
      error: e instanceof Error ? e.message.slice(0, 200) : 'failed',
    };
  } finally {
    await Promise.all(conns.map((c) => c.stop()));
  }
};

/**
 * One measurement pass of a server: pre-flight; the surface a lane would see, handed to the guard
 * before any evidence can promote the server; then the demonstration if the policy names a probe.
 */
export const measurePass = async (
  spawn: Spawn,
  cfg: { callTimeoutMs: number; probe?: ProbeStepConfig[] },
  withProbe: boolean,
  vet: (surface: Surface) => void,
): Promise<{ preflight: PreflightOutcome; demonstration?: DemonstrationResult }> => {
  const pre = await preflight(spawn, cfg.callTimeoutMs);
  const probeConn = await spawn('surface').catch(() => undefined);
  if (probeConn) {
    try {
      vet(await fetchSurface(probeConn, cfg.callTimeoutMs));
    } finally {
      await probeConn.stop();
    }
  }
  const demo =
    withProbe && pre.ran && cfg.probe && cfg.probe.length > 0 ? await demonstrate(spawn, cfg.probe, cfg.callTimeoutMs) : undefined;
  return { preflight: { ...pre }, ...(demo ? { demonstration: { ...demo } } : {}) };
};

/**
 * `lanegate/measure` in a host: pre-flight (and the demonstration if the policy names a probe) on
 * scratch processes. Only a lane-independent stdio launch of a shared host is measurable.
 */
export const measureServer = (
  cfg: ServerConfig | undefined,
  scratch: ((server: ServerConfig, tag: string, clientInfo?: { name: string; version: string }) => Promise<UpstreamConn>) | undefined,
  withProbe: boolean,
  vet: (surface: Surface) => void,
): ReturnType<typeof measurePass> => {
  if (!cfg || !scratch) throw new RpcFailure({ code: ERR.invalidParams, message: 'not measurable in this host' });
  if (cfg.transport.kind !== 'stdio' || cfg.perLaneLaunch)
    throw new RpcFailure({ code: ERR.invalidParams, message: `"${cfg.name}" is not a lane-independent stdio launch` });
  return measurePass((tag, clientInfo) => scratch(cfg, tag, clientInfo), cfg, withProbe, vet);
};
