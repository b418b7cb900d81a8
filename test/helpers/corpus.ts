import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { type Finding, type ItemVerdict, judgeSurface, type Surface } from '../../src/guard/scanner.js';

export interface CorpusEntry {
  id: string;
  label: 'malicious' | 'benign';
  /** The attack or benign class (test/guard/split.ts fills it for the old rows). */
  class: string;
  technique: string;
  source: string;
  /** The split unit: the source a row came from. */
  group: string;
  licence: string;
  tool: Record<string, unknown>;
  siblings?: string[];
  instructions?: string;
  lang?: string;
}

const DIR = new URL('../fixtures/guard/', import.meta.url);

/** The classes a corpus row may carry, per label. */
export const CORPUS_CLASSES: Record<'malicious' | 'benign', readonly string[]> = {
  malicious: [
    'directive',
    'hidden',
    'exfil-param',
    'harm-as-feature',
    'purpose-mismatch',
    'cross-server',
    'non-english',
    'schema-poisoning',
  ],
  benign: ['plain', 'hard-negative'],
};

export const loadCorpus = (file = 'train.jsonl'): CorpusEntry[] =>
  readFileSync(new URL(file, DIR), 'utf8')
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map((l) => JSON.parse(l) as CorpusEntry);

/** The surface one entry stands for: its tool, the server's other tool names, its instructions. */
export const surfaceOf = (e: CorpusEntry): Surface => ({
  tools: [e.tool],
  ...(e.siblings ? { siblings: e.siblings } : {}),
  ...(e.instructions ? { instructions: e.instructions } : {}),
});

/** The scanner's verdict on one corpus entry. */
export const verdictOf = (e: CorpusEntry): Finding[] => judgeSurface(surfaceOf(e)).flatMap((v) => v.findings);

export const judgeEntry = (e: CorpusEntry): ItemVerdict[] => judgeSurface(surfaceOf(e));

/** The frozen blind split, refused if it is not the file BLIND.md recorded. Each load is logged. */
export const loadBlind = (purpose: string): CorpusEntry[] => {
  const text = readFileSync(new URL('blind.jsonl', DIR), 'utf8');
  const want = /sha256: `([0-9a-f]{64})`/.exec(readFileSync(new URL('BLIND.md', DIR), 'utf8'))?.[1];
  const have = createHash('sha256').update(text).digest('hex');
  if (want !== have) throw new Error(`blind.jsonl is not the frozen split (sha256 ${have}, BLIND.md says ${want})`);
  appendFileSync(new URL('blind-scores.log', DIR), `${new Date().toISOString()} ${purpose}\n`);
  return text
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map((l) => JSON.parse(l) as CorpusEntry);
};

export const blindScoreCount = (): number => {
  const log = new URL('blind-scores.log', DIR);
  return existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0;
};
