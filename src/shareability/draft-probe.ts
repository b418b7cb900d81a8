import { CANARY_TOKEN } from './demonstration.js';

type Tool = Record<string, unknown>;
type Schema = { type?: unknown; enum?: unknown[]; properties?: Record<string, Schema>; required?: string[]; minimum?: number };

const sample = (s: Schema | undefined, useCanary: boolean): unknown => {
  if (s?.enum && s.enum.length > 0) return s.enum[0];
  switch (s?.type) {
    case 'string':
      return useCanary ? CANARY_TOKEN : 'probe';
    case 'number':
    case 'integer':
      return typeof s.minimum === 'number' ? s.minimum : 1;
    case 'boolean':
      return false;
    case 'array':
      return [];
    default:
      return useCanary ? CANARY_TOKEN : 'probe';
  }
};

/**
 * Proposes a probe from a server's READ-ONLY tools (readOnlyHint true, not destructive), filling
 * required arguments with a canary where a string fits. A proposal for an operator to review and
 * paste into the policy; nothing is probed that the policy does not name. Pure.
 */
export const draftProbe = (tools: Tool[]): { tool: string; args: Record<string, unknown> }[] => {
  const readOnly = tools.filter((t) => {
    const a = t.annotations as { readOnlyHint?: boolean; destructiveHint?: boolean } | undefined;
    return a?.readOnlyHint === true && a.destructiveHint !== true;
  });
  return readOnly.map((t) => {
    const schema = (t.inputSchema ?? {}) as Schema;
    const required = new Set(schema.required ?? []);
    const args: Record<string, unknown> = {};
    let canaryUsed = false;
    for (const [name, prop] of Object.entries(schema.properties ?? {})) {
      if (!required.has(name)) continue;
      const v = sample(prop, !canaryUsed);
      if (v === CANARY_TOKEN) canaryUsed = true;
      args[name] = v;
    }
    return { tool: String(t.name), args };
  });
};
