import type { ProbeStepConfig } from '../policy/model.js';
import { isError, leaves, substitute } from './demonstration.js';
import { differingLeaves } from './leaves.js';
import { scopeKey } from './scope.js';

/**
 * Spot checks (the tripwire's second eye): state a lane's own text does not reveal (a counter, a
 * cache, a mode another lane switched) shows as an output of a probe step that a fresh process
 * would not give. The baseline is the step run alone on two fresh processes, with the
 * demonstration's rules: leaves that differ between those two are noise, declared volatile
 * paths are blanked, each run's own canary is normalised. Pure.
 */
export interface SpotBaseline {
  /** By the step's position in the steps it was made from. */
  steps: ({ request: string; leaves: Map<string, string>; noise: Set<string> } | undefined)[];
}

/** The probe steps a shared child may run now (inside the scope it shares under). */
export const spotSteps = (probe: readonly ProbeStepConfig[], scope: ReadonlySet<string>): ProbeStepConfig[] =>
  probe.filter((s) => scope.has(scopeKey(s.method, s.name)));

/** The params of a step for one canary (as the demonstration sends them). */
export const spotParams = (step: ProbeStepConfig, canary: string): Record<string, unknown> =>
  step.method === 'resources/read'
    ? { uri: substitute(step.name, canary) }
    : { name: step.name, arguments: substitute(step.args, canary) as Record<string, unknown> };

/** A baseline from two fresh solo runs of the same steps (canaries c0 and c1). A step that errored is left out. */
export const spotBaseline = (steps: readonly ProbeStepConfig[], c0: string, c1: string, o0: unknown[], o1: unknown[]): SpotBaseline => ({
  steps: steps.map((step, i) => {
    const [a, b] = [o0[i], o1[i]];
    if (a === undefined || b === undefined || isError(a) || isError(b)) return undefined;
    const l0 = leaves(a, c0, step.volatile);
    return { request: scopeKey(step.method, step.name), leaves: l0, noise: differingLeaves(l0, leaves(b, c1, step.volatile)) };
  }),
});

/**
 * Where a run of the steps (canary `c`) differs from the baseline beyond its noise: one entry per
 * step that moved, with the paths. A step that errored, or has no baseline, is not judged (an
 * error is not evidence of another lane's state).
 */
export const judgeSpot = (
  base: SpotBaseline,
  steps: readonly ProbeStepConfig[],
  c: string,
  outputs: unknown[],
): { request: string; moved: string[] }[] =>
  steps.flatMap((step, i) => {
    const b = base.steps[i];
    const o = outputs[i];
    if (!b || o === undefined || isError(o)) return [];
    const moved = [...differingLeaves(b.leaves, leaves(o, c, step.volatile))].filter((p) => !b.noise.has(p)).sort();
    return moved.length > 0 ? [{ request: b.request, moved }] : [];
  });
