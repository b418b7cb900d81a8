import { readFileSync } from 'node:fs';
import { type Finding, scanSurface } from '../../src/guard/scanner.js';

export interface CorpusEntry {
  id: string;
  label: 'malicious' | 'benign';
  technique: string;
  source: string;
  licence: string;
  tool: Record<string, unknown>;
  instructions?: string;
}

export const loadCorpus = (file = 'corpus.jsonl'): CorpusEntry[] =>
  readFileSync(new URL(`../fixtures/guard/${file}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map((l) => JSON.parse(l) as CorpusEntry);

/** The scanner's verdict on one corpus entry: its tool plus any server instructions it carries. */
export const verdictOf = (e: CorpusEntry): Finding[] =>
  scanSurface({ tools: [e.tool], ...(e.instructions ? { instructions: e.instructions } : {}) });
