import type { DemonstrationResult } from '../records/verdicts.js';

/**
 * A refutation stands for the request it refuted: a new demonstration under the same launch
 * identity clears it only by exercising that request in every run without refuting it. Leaving
 * the request out of the probe (or dropping the probe) never clears it. Returns the demonstration
 * to record, with standing refutations carried over (marked `standingSince`). Pure.
 */
export const withStanding = (
  prev: DemonstrationResult | undefined,
  next: DemonstrationResult | undefined,
  now: number,
): DemonstrationResult | undefined => {
  const cleared = new Set(next?.coverage.exercised ?? []);
  const fresh = new Set((next?.refutations ?? []).map((x) => x.request));
  const standing = (prev?.refutations ?? [])
    .filter((x) => !cleared.has(x.request) && !fresh.has(x.request))
    .map((x) => ({ ...x, standingSince: x.standingSince ?? now }));
  if (standing.length === 0) return next;
  const base: DemonstrationResult = next ?? {
    ran: false,
    passed: false,
    refutations: [],
    notes: [],
    coverage: { exercised: [], listed: prev?.coverage.listed ?? 0 },
    scope: [],
    error: 'no demonstration ran under the current probe',
  };
  const refuted = new Set(standing.map((x) => x.request));
  return {
    ...base,
    passed: false,
    refutations: [...base.refutations, ...standing],
    scope: base.scope.filter((k) => !refuted.has(k)),
  };
};
