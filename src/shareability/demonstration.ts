import type { ProbeStepConfig } from '../policy/model.js';
import type { DemonstrationResult, Refutation } from '../records/verdicts.js';
import { canonical } from '../guard/hash.js';
import { differingLeaves, leavesOf } from './leaves.js';
import { scopeKey } from './scope.js';

/** The probe placeholder, in the policy's one `{name}` family; `{{canary}}` (older policies) still works. */
export const CANARY_TOKEN = '{canary}';
const LEGACY_CANARY = '{{canary}}';

/** Replaces {canary} (or {{canary}}) in every string of a probe step's arguments. Pure. */
export const substitute = (v: unknown, canary: string): unknown => {
  if (typeof v === 'string') return v.split(LEGACY_CANARY).join(canary).split(CANARY_TOKEN).join(canary);
  if (Array.isArray(v)) return v.map((x) => substitute(x, canary));
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x, canary)]));
  return v;
};

const walkStrings = (v: unknown, f: (s: string) => string): unknown => {
  if (typeof v === 'string') return f(v);
  if (Array.isArray(v)) return v.map((x) => walkStrings(x, f));
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walkStrings(x, f)]));
  return v;
};

/** Blanks the values at volatile paths ("a.b", "content[*].text", "items[0].id"). Pure. */
export const blankPaths = (v: unknown, paths: readonly string[]): unknown => {
  let out = structuredClone(v);
  for (const p of paths) {
    const parts = p.replace(/^\$\.?/, '').match(/[^.[\]]+|\[(\*|\d+)\]/g) ?? [];
    const go = (node: unknown, i: number): unknown => {
      if (i === parts.length) return '<volatile>';
      if (node === null || typeof node !== 'object') return node;
      const part = parts[i] ?? '';
      if (part.startsWith('[')) {
        if (!Array.isArray(node)) return node;
        const idx = part.slice(1, -1);
        return node.map((x, j) => (idx === '*' || Number(idx) === j ? go(x, i + 1) : x));
      }
      const o = node as Record<string, unknown>;
      return part in o ? { ...o, [part]: go(o[part], i + 1) } : o;
    };
    out = go(out, 0);
  }
  return out;
};

/** An output as compared across runs: its canary replaced by the placeholder, volatile paths blanked. */
export const normaliseOutput = (output: unknown, canary: string, volatile: readonly string[]): string =>
  canonical(
    blankPaths(
      walkStrings(output, (s) => s.split(canary).join(CANARY_TOKEN)),
      volatile,
    ),
  );

const contains = (output: unknown, needle: string): boolean => JSON.stringify(output).includes(needle);

export const isError = (o: unknown): boolean => {
  const r = o as { error?: unknown; isError?: unknown } | null;
  return r !== null && typeof r === 'object' && (r.error !== undefined || r.isError === true);
};

export interface DemonstrationRuns {
  probe: ProbeStepConfig[];
  canaries: { base: string; base2: string; a: string; b: string; c: string };
  /** Two solo baselines, each on a FRESH process: what differs between them is noise. */
  base: unknown[];
  base2: unknown[];
  a: unknown[];
  b: unknown[];
  c: unknown[];
  /** Tools, prompts and resources the server listed. */
  listed: number;
}

/** An output's leaves with its own canary replaced by the placeholder and declared volatile paths blanked. */
export const leaves = (o: unknown, canary: string, volatile: readonly string[]): Map<string, string> =>
  leavesOf(
    blankPaths(
      walkStrings(o, (s) => s.split(canary).join(CANARY_TOKEN)),
      volatile,
    ),
  );

const minus = (a: Set<string>, b: Set<string>): string[] => [...a].filter((x) => !b.has(x));
const shown = (paths: string[]): string => `${paths.slice(0, 3).join(', ')}${paths.length > 3 ? ` (+${paths.length - 3} more)` : ''}`;

/**
 * Judges a demonstration from its five runs: two solo baselines on two fresh processes; A and B
 * concurrently on ONE fresh process with distinct canaries; C after a restart. Per step:
 * - contamination: a lane's output holds the other lane's canary;
 * - persistence: a fresh process (the second baseline, A, B, or C after the restart) shows a
 *   canary written by an earlier process;
 * - influence: a leaf that is identical across the two fresh solo runs (so not noise) differs
 *   in A's or B's output (canaries normalised, declared volatile paths blanked).
 * Leaves that differ between the two solo runs are volatile (random ids, timestamps, pids) and
 * ignored. A step is covered only if none of its five calls errored; the scope is the covered,
 * unrefuted requests. Pure.
 */
export const judgeDemonstration = (r: DemonstrationRuns): DemonstrationResult => {
  const refutations: Refutation[] = [];
  const notes: string[] = [];
  const volatile: Record<string, string[]> = {};
  const covered = new Set<string>();
  const { base: c0, base2: c1, a: cA, b: cB, c: cC } = r.canaries;
  r.probe.forEach((step, i) => {
    const request = scopeKey(step.method, step.name);
    const refute = (kind: Refutation['kind'], detail: string): void => {
      refutations.push({ kind, request, detail: `${detail} (step ${i + 1})` });
    };
    const [o0, o1, oa, ob, oc] = [r.base[i], r.base2[i], r.a[i], r.b[i], r.c[i]];
    if (contains(ob, cA)) refute('contamination', `lane B saw lane A's canary ${cA}`);
    if (contains(oa, cB)) refute('contamination', `lane A saw lane B's canary ${cB}`);
    if (contains(o1, c0)) refute('persistence', `a fresh process saw the canary ${c0} written by an earlier one`);
    for (const [label, o] of [
      ['A', oa],
      ['B', ob],
    ] as const) {
      const seen = [c0, c1].filter((c) => contains(o, c));
      if (seen.length > 0) refute('persistence', `lane ${label} on a fresh process saw ${seen.join(', ')} written by an earlier process`);
    }
    const after = [cA, cB, c0, c1].filter((c) => contains(oc, c));
    if (after.length > 0) refute('persistence', `after a restart, lane C saw ${after.join(', ')} written before it`);
    const l0 = leaves(o0, c0, step.volatile);
    const noise = differingLeaves(l0, leaves(o1, c1, step.volatile));
    if (noise.size > 0) volatile[request] = [...noise].sort();
    for (const [label, o, c] of [
      ['A', oa, cA],
      ['B', ob, cB],
    ] as const) {
      const moved = minus(differingLeaves(l0, leaves(o, c, step.volatile)), noise);
      if (moved.length > 0)
        refute('influence', `lane ${label}'s output differed from the solo runs while the other lane ran, at ${shown(moved)}`);
    }
    const restart = minus(differingLeaves(l0, leaves(oc, cC, step.volatile)), noise);
    if (restart.length > 0)
      notes.push(`${request}: output after a restart differs from the first runs at ${shown(restart)} (step ${i + 1})`);
    if (![o0, o1, oa, ob, oc].some(isError)) covered.add(request);
  });
  const refuted = new Set(refutations.map((x) => x.request));
  const scope = [...covered].filter((k) => !refuted.has(k));
  const error = covered.size === 0 ? 'no probe step succeeded in every run' : undefined;
  return {
    ran: true,
    passed: refutations.length === 0 && error === undefined,
    refutations,
    notes,
    coverage: { exercised: [...covered], listed: r.listed },
    scope,
    volatile,
    ...(error ? { error } : {}),
  };
};
