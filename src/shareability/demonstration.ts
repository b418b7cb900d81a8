import type { ProbeStepConfig } from '../policy/model.js';
import type { DemonstrationResult, Refutation } from '../records/verdicts.js';
import { canonical } from '../guard/hash.js';

export const CANARY_TOKEN = '{{canary}}';

/** Replaces {{canary}} in every string of a probe step's arguments. Pure. */
export const substitute = (v: unknown, canary: string): unknown => {
  if (typeof v === 'string') return v.split(CANARY_TOKEN).join(canary);
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

const isError = (o: unknown): boolean => {
  const r = o as { error?: unknown; isError?: unknown } | null;
  return r !== null && typeof r === 'object' && (r.error !== undefined || r.isError === true);
};

export interface DemonstrationRuns {
  probe: ProbeStepConfig[];
  canaries: { base: string; a: string; b: string; c: string };
  base: unknown[];
  a: unknown[];
  b: unknown[];
  c: unknown[];
  listed: number;
}

/**
 * Judges a demonstration from its four runs (solo baseline; A and B concurrently on one fresh
 * instance; C after a restart). Refuted when a lane's output holds another lane's canary
 * (contamination), when A's or B's outputs differ from the solo baseline once canaries are
 * normalised (influence without echo), or when anything written before a restart shows after
 * it (persistence). Pure.
 */
export const judgeDemonstration = (r: DemonstrationRuns): DemonstrationResult => {
  const refutations: Refutation[] = [];
  const notes: string[] = [];
  const { base: cBase, a: cA, b: cB, c: cC } = r.canaries;
  r.probe.forEach((step, i) => {
    const tool = step.tool;
    const [ob, oa, obb, oc] = [r.base[i], r.a[i], r.b[i], r.c[i]];
    if (contains(obb, cA)) refutations.push({ kind: 'contamination', tool, detail: `lane B saw lane A's canary ${cA} (step ${i + 1})` });
    if (contains(oa, cB)) refutations.push({ kind: 'contamination', tool, detail: `lane A saw lane B's canary ${cB} (step ${i + 1})` });
    for (const [label, o] of [
      ['A', oa],
      ['B', obb],
    ] as const) {
      if (contains(o, cBase))
        refutations.push({
          kind: 'persistence',
          tool,
          detail: `lane ${label} on a fresh process saw the canary ${cBase} written by an earlier process (step ${i + 1})`,
        });
    }
    const seen = [cA, cB, cBase].filter((c) => contains(oc, c));
    if (seen.length > 0)
      refutations.push({
        kind: 'persistence',
        tool,
        detail: `after a restart, lane C saw ${seen.join(', ')} written before it (step ${i + 1})`,
      });
    const baseline = normaliseOutput(ob, cBase, step.volatile);
    if (normaliseOutput(oa, cA, step.volatile) !== baseline)
      refutations.push({
        kind: 'influence',
        tool,
        detail: `lane A's output differed from its solo baseline while lane B ran (step ${i + 1})`,
      });
    if (normaliseOutput(obb, cB, step.volatile) !== baseline)
      refutations.push({
        kind: 'influence',
        tool,
        detail: `lane B's output differed from the solo baseline while lane A ran (step ${i + 1})`,
      });
    if (normaliseOutput(oc, cC, step.volatile) !== baseline)
      notes.push(`${tool}: output after a restart differs from the first run (step ${i + 1})`);
  });
  const exercised = [...new Set(r.probe.filter((_, i) => !isError(r.base[i])).map((s) => s.tool))];
  const error = exercised.length === 0 ? 'no probe step succeeded' : undefined;
  return {
    ran: true,
    passed: refutations.length === 0 && error === undefined,
    refutations,
    notes,
    coverage: { exercised, listed: r.listed },
    ...(error ? { error } : {}),
  };
};
