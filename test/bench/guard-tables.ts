/**
 * The guard bench's tables: recall and FPR per class, per source kind and per language. A source
 * kind is what a row's source is: a published attack benchmark, an attack lab or PoC, a payload
 * written for this corpus after a published technique (variant), or a real server's own tools.
 */
import type { CorpusEntry } from '../helpers/corpus.js';

export interface Scored {
  e: CorpusEntry;
  rules: boolean;
  guard: boolean;
  codes: string[];
}

const BENCHMARK =
  /mcptox|mcpsafety|safetybench|mcpsecbench|\bmsb\b|dongsenzhang|vigil|mcp-scanner|guardbench|poison-bench|tool-poisoning-bench|llm-unreliable|safe-mcp|invariant|mcp-artifact/i;

export const sourceKind = (e: CorpusEntry): string => {
  if (/^(?:variant|adapted)\b/i.test(e.source) || e.group.startsWith('variant:')) return 'variant';
  if (e.label === 'benign') return 'real server';
  return BENCHMARK.test(`${e.source} ${e.group}`) ? 'benchmark' : 'attack lab / PoC';
};

/** The row's language: its `lang` tag, else CJK/Cyrillic/Arabic script in its description, else en. */
export const languageOf = (e: CorpusEntry): string => {
  if (e.lang) return e.lang;
  const d = String(e.tool.description ?? '');
  if (/[\u3040-\u30ff]/.test(d)) return 'ja';
  if (/[\uac00-\ud7af]/.test(d)) return 'ko';
  if (/[\u4e00-\u9fff]/.test(d)) return 'zh';
  if (/[\u0400-\u04ff]{4}/.test(d)) return 'ru';
  if (/[\u0600-\u06ff]{4}/.test(d)) return 'ar';
  return 'en';
};

const rate = (xs: Scored[], k: 'rules' | 'guard'): string => (xs.length ? (xs.filter((s) => s[k]).length / xs.length).toFixed(3) : '  -  ');

const rows = (title: string, scored: Scored[], keyOf: (s: Scored) => string): void => {
  console.log(`  ${title.padEnd(34)} ${'rows'.padStart(5)}  rules  guard   (refused share)`);
  for (const k of [...new Set(scored.map(keyOf))].sort()) {
    const xs = scored.filter((s) => keyOf(s) === k);
    console.log(`  ${k.padEnd(34)} ${String(xs.length).padStart(5)}  ${rate(xs, 'rules')}  ${rate(xs, 'guard')}`);
  }
};

export const table = (title: string, scored: Scored[]): void => {
  const mal = scored.filter((s) => s.e.label === 'malicious');
  const ben = scored.filter((s) => s.e.label === 'benign');
  console.log(`\n${title}: ${mal.length} malicious, ${ben.length} benign, ${new Set(scored.map((s) => s.e.group)).size} sources`);
  rows('class', scored, (s) => `${s.e.label}/${s.e.class}`);
  rows('source kind', scored, (s) => `${s.e.label}/${sourceKind(s.e)}`);
  rows('language (non-English and en)', scored, (s) => `${s.e.label}/${languageOf(s.e) === 'en' ? 'en' : languageOf(s.e)}`);
  const cjk = ben.filter((s) => ['zh', 'ja', 'ko'].includes(languageOf(s.e)));
  const en = ben.filter((s) => languageOf(s.e) === 'en');
  console.log(`  benign FPR: CJK ${rate(cjk, 'guard')} (${cjk.length} rows) against English ${rate(en, 'guard')} (${en.length} rows)`);
  console.log(
    `  RECALL ${rate(mal, 'guard')} (rules alone ${rate(mal, 'rules')})   FPR ${rate(ben, 'guard')} (rules alone ${rate(ben, 'rules')})`,
  );
};
