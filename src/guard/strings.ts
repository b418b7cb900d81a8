/**
 * Every model-visible string of an upstream surface, each with where it was found. A model
 * reads names, titles, descriptions, parameter names, enum/default/example values and the
 * server's instructions: any of them can carry a prompt. Pure.
 */
export type SurfaceKind = 'tool' | 'prompt' | 'resource' | 'resourceTemplate' | 'instructions';

export interface VisibleString {
  kind: SurfaceKind;
  /** The item's name (tool/prompt name, resource URI) or "instructions". */
  item: string;
  /** Where inside the item, e.g. "description", "inputSchema.properties.path.description". */
  field: string;
  text: string;
  /** Whether the string is a schema value the model may be asked to fill in (exfiltration surface). */
  parameter?: string;
}

const MAX_DEPTH = 12;

const schemaStrings = (
  schema: unknown,
  base: string,
  item: string,
  kind: SurfaceKind,
  out: VisibleString[],
  depth = 0,
  param?: string,
): void => {
  if (depth > MAX_DEPTH || schema === null || typeof schema !== 'object') return;
  if (Array.isArray(schema)) {
    for (const [i, s] of schema.entries()) schemaStrings(s, `${base}[${i}]`, item, kind, out, depth + 1, param);
    return;
  }
  const o = schema as Record<string, unknown>;
  const push = (field: string, v: unknown): void => {
    if (typeof v === 'string' && v.length > 0)
      out.push({ kind, item, field: `${base}.${field}`, text: v, ...(param ? { parameter: param } : {}) });
  };
  push('title', o.title);
  push('description', o.description);
  push('$comment', o.$comment);
  push('pattern', o.pattern);
  for (const key of ['enum', 'examples'] as const) {
    const arr = o[key];
    if (Array.isArray(arr)) for (const [i, v] of arr.entries()) push(`${key}[${i}]`, v);
  }
  for (const key of ['default', 'const'] as const) {
    const v = o[key];
    if (typeof v === 'string') push(key, v);
    else if (v !== null && typeof v === 'object')
      schemaStrings(
        { examples: JSON.stringify(v) === '{}' ? [] : [JSON.stringify(v)] },
        `${base}.${key}`,
        item,
        kind,
        out,
        depth + 1,
        param,
      );
  }
  for (const key of ['properties', 'patternProperties', '$defs', 'definitions'] as const) {
    const props = o[key];
    if (props && typeof props === 'object' && !Array.isArray(props)) {
      for (const [name, sub] of Object.entries(props as Record<string, unknown>)) {
        out.push({ kind, item, field: `${base}.${key}.${name}(name)`, text: name, parameter: name });
        schemaStrings(sub, `${base}.${key}.${name}`, item, kind, out, depth + 1, name);
      }
    }
  }
  for (const key of ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains'] as const) {
    if (o[key] && typeof o[key] === 'object') schemaStrings(o[key], `${base}.${key}`, item, kind, out, depth + 1, param);
  }
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const) {
    if (Array.isArray(o[key])) schemaStrings(o[key], `${base}.${key}`, item, kind, out, depth + 1, param);
  }
};

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

export const toolStrings = (tool: Record<string, unknown>): VisibleString[] => {
  const item = String(tool.name ?? '');
  const out: VisibleString[] = [];
  const add = (field: string, v: unknown): void => {
    const s = str(v);
    if (s) out.push({ kind: 'tool', item, field, text: s });
  };
  add('name', tool.name);
  add('title', tool.title);
  add('description', tool.description);
  add('annotations.title', (tool.annotations as Record<string, unknown> | undefined)?.title);
  schemaStrings(tool.inputSchema, 'inputSchema', item, 'tool', out);
  schemaStrings(tool.outputSchema, 'outputSchema', item, 'tool', out);
  return out;
};

export const promptStrings = (p: Record<string, unknown>): VisibleString[] => {
  const item = String(p.name ?? '');
  const out: VisibleString[] = [];
  for (const f of ['name', 'title', 'description'] as const) {
    const s = str(p[f]);
    if (s) out.push({ kind: 'prompt', item, field: f, text: s });
  }
  const args = Array.isArray(p.arguments) ? (p.arguments as Record<string, unknown>[]) : [];
  args.forEach((a, i) => {
    for (const f of ['name', 'title', 'description'] as const) {
      const s = str(a[f]);
      if (s) out.push({ kind: 'prompt', item, field: `arguments[${i}].${f}`, text: s, parameter: String(a.name ?? '') });
    }
  });
  return out;
};

export const resourceStrings = (r: Record<string, unknown>, kind: 'resource' | 'resourceTemplate'): VisibleString[] => {
  const item = String((kind === 'resource' ? r.uri : r.uriTemplate) ?? r.name ?? '');
  const out: VisibleString[] = [];
  for (const f of ['name', 'title', 'description', kind === 'resource' ? 'uri' : 'uriTemplate'] as const) {
    const s = str(r[f]);
    if (s) out.push({ kind, item, field: f, text: s });
  }
  return out;
};
