import { CANARY_TOKEN } from './demonstration.js';

type Tool = Record<string, unknown>;
interface Schema {
  type?: unknown;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  examples?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minItems?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  anyOf?: Schema[];
  oneOf?: Schema[];
  format?: string;
}

/** Where a server keeps files it may read: directories from its launch, and files found in them. */
export interface ProbeRoots {
  dirs: string[];
  files: string[];
}

const PATHY = /(^|_)(path|paths|file|filename|dir|directory|root|source|src)$/i;
const DIRY = /(list|dir|directory|tree|search|find|glob)/i;

const firstType = (s: Schema): string | undefined => {
  if (typeof s.type === 'string') return s.type;
  if (Array.isArray(s.type)) return (s.type as unknown[]).find((t): t is string => typeof t === 'string' && t !== 'null');
  return undefined;
};

interface Ctx {
  roots: ProbeRoots;
  tool: string;
  canaryUsed: boolean;
}

/**
 * A value of the schema's own type: its const, default, first example or first enum value when it
 * declares one; booleans false; numbers within their bounds; objects with their required fields;
 * arrays of their minimum length; paths inside the server's roots; one canary in the first free
 * string. Pure.
 */
const sample = (s: Schema | undefined, name: string, c: Ctx): unknown => {
  if (!s) return 'probe';
  if (s.const !== undefined) return s.const;
  if (s.default !== undefined) return s.default;
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if (s.enum && s.enum.length > 0) return s.enum[0];
  const alt = s.anyOf?.find((x) => firstType(x) !== 'null') ?? s.oneOf?.[0];
  if (alt && firstType(s) === undefined) return sample(alt, name, c);
  switch (firstType(s)) {
    case 'boolean':
      return false;
    case 'integer':
    case 'number': {
      const lo = typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + 1 : 1;
      return typeof s.maximum === 'number' ? Math.min(lo, s.maximum) : lo;
    }
    case 'array':
      return Array.from({ length: s.minItems ?? 0 }, () => sample(s.items, name, c));
    case 'object':
      return Object.fromEntries((s.required ?? []).map((k) => [k, sample(s.properties?.[k], k, c)]));
    default: {
      if (PATHY.test(name) && c.roots.dirs.length > 0) {
        const wantsDir = DIRY.test(c.tool) || /dir|root/i.test(name);
        return wantsDir || c.roots.files.length === 0 ? c.roots.dirs[0] : c.roots.files[0];
      }
      if (s.format === 'uri') return 'https://example.invalid/probe';
      if (c.canaryUsed) return 'probe';
      c.canaryUsed = true;
      return CANARY_TOKEN;
    }
  }
};

/**
 * Proposes a probe from a server's READ-ONLY tools (readOnlyHint true, not destructive): every
 * required argument filled with a value of its declared type, paths inside the server's roots,
 * one canary where a free string fits. A proposal for an operator to review and paste into the
 * policy; nothing is probed that the policy does not name. Pure.
 */
export const draftProbe = (
  tools: Tool[],
  roots: ProbeRoots = { dirs: [], files: [] },
): { tool: string; args: Record<string, unknown> }[] => {
  const readOnly = tools.filter((t) => {
    const a = t.annotations as { readOnlyHint?: boolean; destructiveHint?: boolean } | undefined;
    return a?.readOnlyHint === true && a.destructiveHint !== true;
  });
  return readOnly.map((t) => {
    const schema = (t.inputSchema ?? {}) as Schema;
    const c: Ctx = { roots, tool: String(t.name), canaryUsed: false };
    const args = Object.fromEntries((schema.required ?? []).map((k) => [k, sample(schema.properties?.[k], k, c)]));
    return { tool: String(t.name), args };
  });
};
