/** Helpers shared by the corpus scripts (split.ts, add-training.ts). */
import { readFileSync } from 'node:fs';

export interface Row {
  id: string;
  label: 'malicious' | 'benign';
  class?: string;
  technique: string;
  source: string;
  group?: string;
  licence: string;
  tool: Record<string, unknown>;
  siblings?: string[];
  instructions?: string;
  lang?: string;
}

export const readRows = (path: string | URL): Row[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Row);

/** Old rows: their group is the repository or site their source names. */
export const groupOfSource = (source: string): string => {
  const s = source.replace(/^(?:variant of|adapted from)\s+(?:the\s+)?/i, '');
  const repo = /([\w.-]+\/[\w.-]+):/.exec(s);
  if (repo?.[1]) return repo[1].toLowerCase();
  const url = /https?:\/\/([^/\s]+)/.exec(s);
  if (url?.[1]) return url[1].toLowerCase();
  return s.slice(0, 40).toLowerCase();
};

/** The class of an old malicious row, from its technique tag. */
export const oldClass = (t: string): string =>
  /unicode|zero-width|bidi|tag-|base64|hex|hidden|comment|ansi|whitespace|encod|rtl/i.test(t)
    ? 'hidden'
    : /schema|default|enum/i.test(t)
      ? 'schema-poisoning'
      : /param/i.test(t)
        ? 'exfil-param'
        : /shadow|cross|preference|redirect/i.test(t)
          ? 'cross-server'
          : 'directive';

/** The split unit: the whole source (repository or site), so one benchmark's paraphrases never straddle. */
export const repoOfGroup = (g: string): string =>
  g
    .replace(/^variant:/, '')
    .split('#')[0]
    ?.toLowerCase() ?? g;

export const textOf = (r: Row): string => {
  const names = [String(r.tool.name ?? ''), ...(r.siblings ?? [])].filter((n) => n.length > 2);
  let t = `${JSON.stringify(r.tool.description ?? '')} ${JSON.stringify(r.tool.inputSchema ?? {})} ${r.instructions ?? ''}`;
  t = t
    .toLowerCase()
    .replace(/https?:\/\/\S+/g, 'URL')
    .replace(/[\w.+-]+@[\w-]+\.[\w.]+/g, 'EMAIL');
  for (const n of names) t = t.split(n.toLowerCase()).join('NAME');
  return t.replace(/\s+/g, ' ');
};

export const shingles = (t: string): Set<string> => {
  const w = t.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  const out = new Set<string>();
  for (let i = 0; i + 5 <= w.length; i++) out.add(w.slice(i, i + 5).join(' '));
  if (out.size === 0) out.add(w.join(' '));
  return out;
};

export const jaccard = (a: Set<string>, b: Set<string>): number => {
  let inter = 0;
  for (const x of a) if (b.has(x)) inter++;
  return inter / (a.size + b.size - inter);
};

/** Whether a row's text is a near-copy of one already kept (same label, Jaccard >= 0.8 on 5-word shingles). */
export const nearCopy = (kept: { label: string; sh: Set<string> }[], label: string, sh: Set<string>): boolean =>
  kept.some((k) => k.label === label && Math.min(k.sh.size, sh.size) / Math.max(k.sh.size, sh.size) >= 0.8 && jaccard(k.sh, sh) >= 0.8);
