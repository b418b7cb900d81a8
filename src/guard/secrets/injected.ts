import type { TextHit } from './text.js';

export const INJECTED_RULE = 'injected_secret';
/** Values shorter than this are not looked for: a 4-character value would match honest text everywhere. */
export const MIN_INJECTED_CHARS = 8;
const MAX_HITS = 256;

/** The part of base64(prefix ‖ value) that depends on the value alone, for prefixes of 0, 1 and 2 bytes. */
const base64Cores = (value: Buffer): string[] => {
  const out: string[] = [];
  for (let k = 0; k < 3; k += 1) {
    const text = Buffer.concat([Buffer.alloc(k), value]).toString('base64');
    // The first group mixes prefix bytes in; the last, if partial, mixes in whatever follows.
    const end = Math.floor((k + value.length) / 3) * 4;
    out.push(text.slice(k > 0 ? 4 : 0, end));
  }
  return out;
};

/**
 * The shapes a secret value can take in JSON text it was put into: itself, JSON-escaped, URL-encoded,
 * hex, and base64 / base64url at any byte alignment. Pure.
 */
export const shapesOf = (value: string): string[] => {
  const bytes = Buffer.from(value, 'utf8');
  const shapes = new Set<string>([value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value), bytes.toString('hex')]);
  for (const core of base64Cores(bytes)) {
    shapes.add(core);
    shapes.add(core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return [...shapes].filter((s) => s.length >= MIN_INJECTED_CHARS);
};

/**
 * The exact values of the secrets this host injects (its domain's secret files). A host holds
 * them anyway; this keeps only their shapes, and answers where they occur in a string. Built once
 * per host; the front never builds one (it never holds a value).
 */
export class InjectedSecrets {
  private readonly shapes: string[];

  constructor(values: Iterable<string>) {
    const all = new Set<string>();
    for (const v of values) if (v.length >= MIN_INJECTED_CHARS) for (const s of shapesOf(v)) all.add(s);
    // Longest first, so a redaction covers the longest shape that matched.
    this.shapes = [...all].sort((a, b) => b.length - a.length);
  }

  get size(): number {
    return this.shapes.length;
  }

  /** Where any shape of any value occurs in the text. */
  find(text: string): TextHit[] {
    if (text.length < MIN_INJECTED_CHARS) return [];
    const hits: TextHit[] = [];
    for (const shape of this.shapes) {
      for (let i = text.indexOf(shape); i >= 0 && hits.length < MAX_HITS; i = text.indexOf(shape, i + shape.length)) {
        hits.push({ rule: INJECTED_RULE, start: i, end: i + shape.length });
      }
    }
    return hits;
  }
}
