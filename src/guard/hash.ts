import { createHash } from 'node:crypto';
import type { Surface } from './scanner.js';

/** Canonical JSON: keys sorted at every depth, so equal surfaces hash equal. Pure. */
export const canonical = (v: unknown): string => {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
    .join(',')}}`;
};

export const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

/** What a trust override is pinned to for one item: name, title, description, schema, annotations. */
export const itemHash = (item: Record<string, unknown>): string =>
  sha256(
    canonical({
      name: item.name,
      title: item.title,
      description: item.description,
      inputSchema: item.inputSchema,
      outputSchema: item.outputSchema,
      annotations: item.annotations,
      arguments: item.arguments,
      uri: item.uri,
      uriTemplate: item.uriTemplate,
      mimeType: item.mimeType,
    }),
  );

/** The whole model-visible surface of an upstream, order-insensitive. */
export const surfaceHash = (s: Surface): string => {
  const sorted = (items: Record<string, unknown>[] | undefined): string[] => (items ?? []).map(itemHash).sort();
  return sha256(
    canonical({
      tools: sorted(s.tools),
      prompts: sorted(s.prompts),
      resources: sorted(s.resources),
      resourceTemplates: sorted(s.resourceTemplates),
      instructions: s.instructions ?? null,
    }),
  );
};

export interface SurfaceChange {
  kind: 'tool' | 'prompt' | 'resource' | 'resourceTemplate' | 'instructions';
  item: string;
  change: 'added' | 'removed' | 'changed';
}

const keyOf = (i: Record<string, unknown>): string => String(i.name ?? i.uri ?? i.uriTemplate ?? '');

/** What changed between two surfaces, item by item. Pure. */
export const diffSurfaces = (a: Surface, b: Surface): SurfaceChange[] => {
  const out: SurfaceChange[] = [];
  const lists = [
    ['tool', 'tools'],
    ['prompt', 'prompts'],
    ['resource', 'resources'],
    ['resourceTemplate', 'resourceTemplates'],
  ] as const;
  for (const [kind, field] of lists) {
    const before = new Map((a[field] ?? []).map((i) => [keyOf(i), itemHash(i)]));
    const after = new Map((b[field] ?? []).map((i) => [keyOf(i), itemHash(i)]));
    for (const [k, h] of after) {
      if (!before.has(k)) out.push({ kind, item: k, change: 'added' });
      else if (before.get(k) !== h) out.push({ kind, item: k, change: 'changed' });
    }
    for (const k of before.keys()) if (!after.has(k)) out.push({ kind, item: k, change: 'removed' });
  }
  if ((a.instructions ?? '') !== (b.instructions ?? '')) out.push({ kind: 'instructions', item: 'instructions', change: 'changed' });
  return out;
};
