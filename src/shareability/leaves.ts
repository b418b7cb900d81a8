/**
 * A JSON value as its leaves: path → canonical leaf text (`content[0].text` → `"Echo: x"`).
 * Used to tell noise (a leaf that differs between two fresh processes run alone) from
 * influence (a leaf stable across fresh processes that changes under concurrency). Pure.
 */
export const leavesOf = (v: unknown, prefix = '', out: Map<string, string> = new Map()): Map<string, string> => {
  if (Array.isArray(v)) {
    if (v.length === 0) out.set(prefix, '[]');
    v.forEach((x, i) => {
      leavesOf(x, `${prefix}[${i}]`, out);
    });
    return out;
  }
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v).sort();
    if (keys.length === 0) out.set(prefix, '{}');
    for (const k of keys) leavesOf((v as Record<string, unknown>)[k], prefix ? `${prefix}.${k}` : k, out);
    return out;
  }
  out.set(prefix, JSON.stringify(v) ?? 'undefined');
  return out;
};

/** Paths whose leaves differ between two values, including paths present in only one. Pure. */
export const differingLeaves = (a: Map<string, string>, b: Map<string, string>): Set<string> => {
  const out = new Set<string>();
  for (const [p, x] of a) if (b.get(p) !== x) out.add(p);
  for (const p of b.keys()) if (!a.has(p)) out.add(p);
  return out;
};
