import { LINK } from '../../link/protocol.js';
import type { Logger } from 'pino';
import type { Policy, ServerConfig } from '../../policy/model.js';
import type { DemonstrationResult } from '../../records/verdicts.js';
import { SCHEMA } from '../../records/verdicts.js';
import type { PreflightOutcome } from '../../link/reports.js';
import type { Evidence } from './evidence.js';
import { withStanding } from '../../shareability/standing.js';

/** A pass reached from a request measures at most this many servers; the rest read as unknown until the next. */
export const MAX_EVALUATIONS_PER_PASS = 2;

export interface MeasureProgress {
  running: boolean;
  /** Servers attempted. */
  done: number;
  /** Servers that produced a verdict (a pre-flight that could not run leaves no row). */
  measured: number;
  total: number;
}

type HostRequest = (key: string, method: string, params: Record<string, unknown>, timeoutMs: number) => Promise<Record<string, unknown>>;

/** Servers a measurement may touch: enabled, lane-independent stdio launches in shared domains. Principal domains are never probed. */
export const measurable = (p: Policy): ServerConfig[] =>
  Object.values(p.servers).filter((s) => {
    const d = p.domains[s.domain];
    return s.enabled && s.share === 'auto' && d?.kind === 'shared' && !d.perLane && s.transport.kind === 'stdio' && !s.perLaneLaunch;
  });

/**
 * Evaluation passes (seed 000): one at a time; a budgeted pass yields when an uncapped one holds
 * the lock; a failure measuring one server never loses the others' verdicts; verdicts are
 * flushed once at the end of a pass.
 */
export class Evaluator {
  private locked = false;
  private pass?: Promise<unknown>;
  progress: MeasureProgress = { running: false, done: 0, measured: 0, total: 0 };

  constructor(
    private readonly policy: () => Policy,
    private readonly evidence: Evidence,
    private readonly request: HostRequest,
    private readonly log: Logger,
    private readonly onPass: (kind: 'budgeted' | 'uncapped', measured: number) => void = () => undefined,
  ) {}

  needs(s: ServerConfig): boolean {
    return this.evidence.row(s.name) === undefined;
  }

  /** Measures up to MAX_EVALUATIONS_PER_PASS unmeasured servers, unless a pass is already running. */
  async budgeted(): Promise<number> {
    if (this.locked) return 0;
    this.locked = true;
    const run = this.runBudgeted();
    this.pass = run;
    return run;
  }

  private async runBudgeted(): Promise<number> {
    try {
      const todo = measurable(this.policy())
        .filter((s) => this.needs(s))
        .slice(0, MAX_EVALUATIONS_PER_PASS);
      let measured = 0;
      for (const s of todo) if (await this.evaluate(s)) measured += 1;
      if (todo.length > 0) this.evidence.saveVerdicts();
      this.onPass('budgeted', measured);
      return measured;
    } finally {
      this.locked = false;
    }
  }

  /** Starts an uncapped pass over every measurable server in the background; returns its progress. */
  startUncapped(): MeasureProgress {
    if (this.progress.running) return this.progress;
    const all = measurable(this.policy());
    this.progress = { running: true, done: 0, measured: 0, total: all.length };
    void (async () => {
      // An uncapped pass waits for a budgeted one to finish (never the reverse).
      for (let i = 0; i < 600 && this.locked; i += 1) await (this.pass ?? new Promise((r) => setTimeout(r, 100)));
      this.locked = true;
      try {
        for (const s of all) {
          if (await this.evaluate(s)) this.progress.measured += 1;
          this.progress.done += 1;
        }
        this.evidence.saveVerdicts();
      } catch (e) {
        this.log.error({ event: 'measure_pass_failed', detail: e instanceof Error ? e.message : 'unknown' }, 'measure pass failed');
      } finally {
        this.progress.running = false;
        this.locked = false;
        this.onPass('uncapped', this.progress.measured);
      }
    })();
    return this.progress;
  }

  /** One server; any failure resolves to "unmeasurable" (no row) rather than escaping the pass. */
  private async evaluate(s: ServerConfig): Promise<boolean> {
    try {
      const withProbe = (s.probe?.length ?? 0) > 0;
      const r = await this.request(s.domain, LINK.measure, { server: s.name, demonstrate: withProbe }, 10 * 60_000);
      const pre = r.preflight as unknown as PreflightOutcome;
      const demo = r.demonstration as unknown as DemonstrationResult | undefined;
      if (!pre.ran) {
        // "Could not ask" is not "answered no": no row, so the server stays unmeasured.
        this.log.warn({ event: 'preflight_not_run', server: s.name, detail: pre.error }, `pre-flight of "${s.name}" could not run`);
        return false;
      }
      // Refutations stand for their requests until a demonstration exercises them and passes.
      const shown = withStanding(this.evidence.row(s.name)?.demonstration, demo, Date.now() / 1000);
      this.evidence.setRow(s.name, {
        identity: this.evidence.identities[s.name] ?? '',
        schema: SCHEMA,
        ran: pre.ran,
        callerSensitive: pre.callerSensitive,
        divergent: pre.divergent,
        declaresCallerIdentity: pre.declaresCallerIdentity,
        evaluatedAt: Date.now() / 1000,
        ...(pre.reportedVersion ? { reportedVersion: pre.reportedVersion } : {}),
        ...(pre.error ? { error: pre.error } : {}),
        degradations: pre.degradations,
        ...(shown ? { demonstration: shown } : {}),
      });
      this.log.info(
        {
          event: 'measured',
          server: s.name,
          ran: pre.ran,
          demonstrated: shown?.passed ?? null,
          scope: shown?.scope ?? [],
          refutations: shown?.refutations.length ?? 0,
        },
        `measured "${s.name}"`,
      );
      return pre.ran;
    } catch (e) {
      this.log.warn(
        { event: 'measure_failed', server: s.name, detail: e instanceof Error ? e.message : 'unknown' },
        `could not measure "${s.name}"`,
      );
      return false;
    }
  }
}
