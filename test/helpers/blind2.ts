/**
 * The second blind split (issue 23): real servers' tools and attacks written for it, none of them
 * from a source the corpus or the first blind split used. Each row also names its lane and its
 * server, so it can be scored as `lanegate scan` sees a lane's catalog of several servers.
 * Like blind.jsonl it is refused unless its hash is the one BLIND2.md froze, and each load is
 * logged: the number of lines in blind2-scores.log is the number of times it has been scored.
 *
 * LANEGATE_BLIND2_FILE scores another file the same way (to check the bench on a throwaway file):
 * its hash is printed rather than checked, and its scorings are logged beside it, not counted here.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import type { CorpusEntry } from './corpus.js';

export interface Blind2Entry extends CorpusEntry {
  /** The lane whose catalog holds the row's server. */
  lane: string;
  /** The server the tool belongs to, by its name in the lane. */
  server: string;
  /** For malicious rows: the issue-23 class it stands for (the `class` is the corpus's). */
  issueClass?: string;
}

const DIR = new URL('../fixtures/guard/', import.meta.url);
const FROZEN = new URL('blind2.jsonl', DIR);
const LOG = new URL('blind2-scores.log', DIR);

export interface Blind2Load {
  rows: Blind2Entry[];
  /** Where the scoring was logged, and whether the file was the frozen split. */
  log: string;
  frozen: boolean;
  sha256: string;
}

const parse = (text: string): Blind2Entry[] =>
  text
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map((l) => JSON.parse(l) as Blind2Entry);

/**
 * Read a split, refuse it unless its sha256 is the one `sums` (a BLIND*.md) records (no `sums`: the
 * hash is only reported), and append one line for this scoring to `log`. Nothing is logged on refusal.
 */
export const loadSplit = (file: string | URL, sums: string | URL | undefined, log: string | URL, purpose: string): Blind2Load => {
  const text = readFileSync(file, 'utf8');
  const have = createHash('sha256').update(text).digest('hex');
  if (sums !== undefined) {
    const want = /sha256: `([0-9a-f]{64})`/.exec(readFileSync(sums, 'utf8'))?.[1];
    if (want !== have) throw new Error(`${String(file)} is not the frozen split (sha256 ${have}, its record says ${want})`);
  }
  appendFileSync(log, `${new Date().toISOString()} ${purpose}\n`);
  return { rows: parse(text), log: String(log), frozen: sums !== undefined, sha256: have };
};

/** Load the second blind split (or the LANEGATE_BLIND2_FILE override) and log the scoring. */
export const loadBlind2 = (purpose: string, override = process.env.LANEGATE_BLIND2_FILE): Blind2Load =>
  override ? loadSplit(override, undefined, `${override}.scores.log`, purpose) : loadSplit(FROZEN, new URL('BLIND2.md', DIR), LOG, purpose);

export const blind2ScoreCount = (): number => (existsSync(LOG) ? readFileSync(LOG, 'utf8').split('\n').filter(Boolean).length : 0);
