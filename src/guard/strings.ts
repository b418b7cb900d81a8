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

/** Keywords whose value is a map from a property name to a schema: the names are model-visible too. */
const NAMED_SCHEMAS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** JSON Schema's own type names: any other `type` string is text a model reads. */
const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

/**
 * Every string a schema holds, at any depth and under any key (a model reads the whole JSON, not
 * only the keywords a validator knows): titles, descriptions, `$comment`, `type`, `format`,
 * `required` entries, enum/const/default/example values (objects as their JSON), property names,
 * and any unknown key's text. Plain type names and `required` entries that name a property are
 * skipped (nothing to read there). Bounded by depth.
 */
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
  const at: At = { base, item, kind, out, depth, ...(param ? { param } : {}) };
  if (Array.isArray(schema)) {
    arrayStrings(schema, at);
    return;
  }
  const o = schema as Record<string, unknown>;
  const props = o.properties !== null && typeof o.properties === 'object' ? (o.properties as Record<string, unknown>) : {};
  for (const [key, v] of Object.entries(o)) keyStrings(key, v, props, at);
};

/** Where a schema walk is: the path so far, the item, the parameter it is inside (if any), and where strings go. */
interface At {
  base: string;
  item: string;
  kind: SurfaceKind;
  out: VisibleString[];
  depth: number;
  param?: string;
}

/** A non-empty string found at `field` (under the walk's parameter, if any). */
const found = (at: At, field: string, text: string): void => {
  if (text.length > 0) at.out.push({ kind: at.kind, item: at.item, field, text, ...(at.param ? { parameter: at.param } : {}) });
};

/** An array's strings; its other entries walked one level deeper. */
const arrayStrings = (schema: unknown[], at: At): void => {
  for (const [i, s] of schema.entries()) {
    if (typeof s === 'string' && s.length > 0) found(at, `${at.base}[${i}]`, s);
    else schemaStrings(s, `${at.base}[${i}]`, at.item, at.kind, at.out, at.depth + 1, at.param);
  }
};

/** One key of a schema object: named sub-schemas (their names too), text, and values a model reads as JSON. */
const keyStrings = (key: string, v: unknown, props: Record<string, unknown>, at: At): void => {
  const push = (field: string, text: string): void => found(at, `${at.base}.${field}`, text);
  if (NAMED_SCHEMAS.has(key) && v !== null && typeof v === 'object' && !Array.isArray(v)) {
    for (const [name, sub] of Object.entries(v as Record<string, unknown>)) {
      at.out.push({ kind: at.kind, item: at.item, field: `${at.base}.${key}.${name}(name)`, text: name, parameter: name });
      schemaStrings(sub, `${at.base}.${key}.${name}`, at.item, at.kind, at.out, at.depth + 1, name);
    }
  } else if (typeof v === 'string') {
    if (!(key === 'type' && JSON_TYPES.has(v))) push(key, v);
  } else if (key === 'required' && Array.isArray(v)) {
    for (const [i, r] of v.entries()) if (typeof r === 'string' && !(r in props)) push(`required[${i}]`, r);
  } else if (key === 'type' && Array.isArray(v)) {
    for (const [i, t] of v.entries()) if (typeof t === 'string' && !JSON_TYPES.has(t)) push(`type[${i}]`, t);
  } else if ((key === 'default' || key === 'const' || key === 'example') && v !== null && typeof v === 'object') {
    if (JSON.stringify(v) !== '{}' && JSON.stringify(v) !== '[]') push(key, JSON.stringify(v));
  } else if ((key === 'examples' || key === 'enum') && Array.isArray(v)) {
    for (const [i, e] of v.entries()) {
      if (typeof e === 'string') push(`${key}[${i}]`, e);
      else if (e !== null && typeof e === 'object') push(`${key}[${i}]`, JSON.stringify(e));
    }
  } else if (v !== null && typeof v === 'object') {
    schemaStrings(v, `${at.base}.${key}`, at.item, at.kind, at.out, at.depth + 1, at.param);
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
      if (s)
        out.push({
          kind: 'prompt',
          item,
          field: `arguments[${i}].${f}`,
          text: s,
          parameter: String(a.name ?? ''),
        });
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
