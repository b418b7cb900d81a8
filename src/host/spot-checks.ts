import { randomBytes } from 'node:crypto';
import { CALLER_IDENTITY_EXT, CALLER_META } from '../link/config.js';
import type { Log } from '../log/lite.js';
import type { ProbeStepConfig } from '../policy/model.js';
import { declaresCallerIdentity } from '../shareability/facets.js';
import { judgeSpot, type SpotBaseline, spotBaseline, spotParams, spotSteps } from '../shareability/spot.js';
import type { Era, UpstreamConn } from '../upstream/conn.js';
import type { ServerSlot } from './slot.js';
import type { ComparisonLauncher } from './comparison-launch.js';

/** How often a shared child is spot-checked (ms) unless LANEGATE_SPOT_CHECK_MS says otherwise (0: never). */
export const SPOT_CHECK_MS = 60_000;
const SPOT_LANE = 'lanegate-spot-check';

/** The spot-check interval a host runs with: LANEGATE_SPOT_CHECK_MS if it is a number (0 turns them off). */
export const spotEveryMs = (env: Record<string, string | undefined>): number => {
  const v = Number(env.LANEGATE_SPOT_CHECK_MS ?? SPOT_CHECK_MS);
  return Number.isFinite(v) && v >= 0 ? v : SPOT_CHECK_MS;
};

export interface SpotDeps {
  slots: () => Iterable<ServerSlot>;
  /** A fresh process launched as the shared child is, speaking the era given (comparison-launch.ts). */
  scratch?: ComparisonLauncher | undefined;
  /** Calls made to each server's shared child so far. */
  calls: ReadonlyMap<string, number>;
  hazard: (slot: ServerSlot, detail: string) => void;
  log: Log;
  everyMs: number;
}

const canary = (): string => `lgcanary${randomBytes(8).toString('hex')}`;

const runSteps = async (conn: UpstreamConn, steps: ProbeStepConfig[], c: string, timeoutMs: number): Promise<unknown[]> => {
  const declares = declaresCallerIdentity(conn.init.capabilities, CALLER_IDENTITY_EXT);
  const out: unknown[] = [];
  for (const step of steps) {
    const params = { ...spotParams(step, c), ...(declares ? { _meta: { [CALLER_META]: { lane: SPOT_LANE } } } : {}) };
    out.push(
      await conn.request(step.method, params, timeoutMs).catch((e: unknown) => ({ error: e instanceof Error ? e.message : 'failed' })),
    );
  }
  return out;
};

/**
 * Low-rate spot checks of shared children, as a synthetic lane: the probe's in-scope steps with a
 * fresh canary, judged against a baseline of two fresh processes with the demonstration's rules
 * (shareability/spot.ts). A difference is confirmed on a fresh process run now: if that one
 * differs too, the world changed (files, clock) and the baseline is renewed; if only the shared
 * child differs, it holds state another lane left, and the server retreats with a `tripwire`
 * hazard. Only a child that served calls since its last check is checked; one check at a time.
 */
export class SpotChecks {
  private readonly baselines = new Map<string, { scope: string; base: SpotBaseline }>();
  private readonly checkedAt = new Map<string, number>();
  private running = false;
  private timer?: NodeJS.Timeout;

  constructor(private readonly d: SpotDeps) {}

  start(): void {
    if (this.d.everyMs <= 0 || !this.d.scratch || this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.d.everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async tick(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (const slot of this.d.slots()) {
        const server = slot.config.name;
        const calls = this.d.calls.get(server) ?? 0;
        if (slot.placement !== 'shared' || !slot.config.probe?.length || calls === (this.checkedAt.get(server) ?? 0)) continue;
        this.checkedAt.set(server, calls);
        await this.check(slot).catch((e: unknown) =>
          this.d.log.warn(
            { event: 'spot_check_not_run', server, detail: e instanceof Error ? e.message.slice(0, 200) : 'failed' },
            'spot check could not run',
          ),
        );
      }
    } finally {
      this.running = false;
    }
  }

  private async fresh(slot: ServerSlot, steps: ProbeStepConfig[], c: string, era: Era): Promise<unknown[]> {
    const scratch = this.d.scratch;
    if (!scratch) throw new Error('no fresh process');
    const conn = await scratch(slot.config, 'spot-check', undefined, era);
    try {
      return await runSteps(conn, steps, c, slot.config.callTimeoutMs);
    } finally {
      await conn.stop();
    }
  }

  private async check(slot: ServerSlot): Promise<void> {
    const server = slot.config.name;
    const steps = spotSteps(slot.config.probe ?? [], slot.scope);
    const conn = slot.sharedConn('legacy') ?? slot.sharedConn('modern');
    if (steps.length === 0 || !conn) return;
    // The fresh processes speak the shared child's era: a 2026-07-28 answer carries fields a
    // handshake-era one does not (resultType, the server's _meta), on an honest server too.
    const era: Era = conn.modern ? 'modern' : 'legacy';
    const scope = `${era}\n${[...slot.scope].sort().join('\n')}`;
    let b = this.baselines.get(server);
    if (!b || b.scope !== scope) {
      const [c0, c1] = [canary(), canary()];
      b = { scope, base: spotBaseline(steps, c0, c1, await this.fresh(slot, steps, c0, era), await this.fresh(slot, steps, c1, era)) };
      this.baselines.set(server, b);
    }
    const c = canary();
    const moved = judgeSpot(b.base, steps, c, await runSteps(conn, steps, c, slot.config.callTimeoutMs));
    this.d.log.info({ event: 'spot_check', server, steps: steps.length, moved: moved.length }, 'spot check of a shared child');
    if (moved.length === 0 || slot.placement !== 'shared') return;
    const c2 = canary();
    const now = judgeSpot(b.base, steps, c2, await this.fresh(slot, steps, c2, era));
    const stateful = moved.filter((m) => !now.some((f) => f.request === m.request));
    if (stateful.length === 0) {
      this.baselines.delete(server);
      this.d.log.info({ event: 'spot_check_rebased', server }, 'a fresh process differs from the baseline too: the baseline is renewed');
      return;
    }
    const what = stateful.map((m) => `${m.request} at ${m.moved.slice(0, 3).join(', ')}`).join('; ');
    this.d.log.warn(
      { event: 'spot_check_failed', server, requests: stateful.map((m) => m.request) },
      `spot check of shared "${server}": its output differs from a fresh process's (${what}); retreating to dedicated`,
    );
    this.d.hazard(slot, `spot check: ${what}`);
  }
}
