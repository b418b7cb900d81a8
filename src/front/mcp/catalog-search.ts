/**
 * Ranking for `catalog: search` lanes: the lane's catalog is searched instead of sent whole.
 * A small BM25-style score over the tool's name, title, description and parameter names, with
 * name matches weighted highest. Pure and deterministic.
 */
export interface SearchHit {
  name: string;
  description: string;
  inputSchema: unknown;
  score: number;
}

const tokens = (s: string): string[] =>
  s
    .toLowerCase()
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .split(/[^a-z0-9]+/)
    .filter((t) => t.length > 1);

const FIELDS: [string, number][] = [
  ['name', 3],
  ['title', 2],
  ['params', 1.5],
  ['description', 1],
];

const fieldsOf = (tool: Record<string, unknown>): Record<string, string[]> => {
  const props = ((tool.inputSchema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {}) as Record<string, unknown>;
  return {
    name: tokens(String(tool.name ?? '').replace(/_/g, ' ')),
    title: tokens(String(tool.title ?? '')),
    params: Object.keys(props).flatMap((k) => tokens(k.replace(/_/g, ' '))),
    description: tokens(String(tool.description ?? '')),
  };
};

export const firstLine = (s: unknown): string =>
  String(s ?? '')
    .split(/\n|(?<=\.)\s/)[0]
    ?.slice(0, 200) ?? '';

export const searchCatalog = (tools: Record<string, unknown>[], query: string, limit = 8): SearchHit[] => {
  const q = [...new Set(tokens(query))];
  if (q.length === 0) return [];
  const docs = tools.map(fieldsOf);
  const n = docs.length;
  const df = new Map<string, number>();
  for (const d of docs) for (const t of new Set(Object.values(d).flat())) df.set(t, (df.get(t) ?? 0) + 1);
  const scored = tools.map((tool, i) => {
    const d = docs[i] as Record<string, string[]>;
    let score = 0;
    for (const term of q) {
      const idf = Math.log(1 + (n - (df.get(term) ?? 0) + 0.5) / ((df.get(term) ?? 0) + 0.5));
      for (const [field, w] of FIELDS) {
        const words = d[field] ?? [];
        const tf = words.filter((x) => x === term || (term.length >= 4 && x.startsWith(term))).length;
        if (tf > 0) score += w * idf * ((tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * words.length) / 12)));
      }
    }
    return {
      name: String(tool.name),
      description: firstLine(tool.description),
      inputSchema: tool.inputSchema ?? { type: 'object' },
      score,
    };
  });
  return scored
    .filter((h) => h.score > 0)
    .sort((a, b) => b.score - a.score || a.name.localeCompare(b.name))
    .slice(0, limit);
};
