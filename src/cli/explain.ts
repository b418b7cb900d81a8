import type { ItemVerdict } from '../guard/scanner.js';
import { escapeUntrusted } from '../log/escape.js';

const signed = (n: number): string => `${n >= 0 ? '+' : ''}${n.toFixed(2)}`;

/**
 * Why each item was refused or admitted: the rules' findings, then every signal the second
 * detector saw with its learned weight and contribution, its score and threshold. The second
 * detector is advisory (it refuses nothing since issue 23): its view is shown, never the verdict.
 * Signals with no weight are listed too (weight 0), so an operator sees what was noticed but not counted.
 */
export const explainVerdicts = (verdicts: ItemVerdict[], only?: string): string[] => {
  const out: string[] = [];
  for (const v of verdicts.filter((x) => !only || x.item === only)) {
    const s = v.second.score;
    const advisory = `second detector, advisory: score ${s.score.toFixed(2)} ${s.refused ? '>=' : '<'} threshold ${s.threshold.toFixed(2)}`;
    const head = `${v.findings.length > 0 ? 'REFUSED by the rules' : 'admitted'} (${advisory})`;
    out.push(`${v.kind} "${escapeUntrusted(v.item, 80)}": ${head}`);
    for (const f of v.findings) out.push(`  finding  ${f.code} at ${f.field}: "${escapeUntrusted(f.matched, 160)}"`);
    out.push('  signals  (weight x value = contribution, largest first)');
    for (const c of s.contributions)
      out.push(
        `    ${signed(c.weight * c.feature.value).padStart(6)}  ${c.feature.id.padEnd(36)} ${c.weight.toFixed(2).padStart(6)} x ${c.feature.value.toFixed(2)}  ${c.feature.field}: "${escapeUntrusted(c.feature.evidence, 90)}"`,
      );
    out.push(`    ${signed(s.score - s.contributions.reduce((a, c) => a + c.weight * c.feature.value, 0)).padStart(6)}  (bias)`);
  }
  return out;
};
