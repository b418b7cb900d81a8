/**
 * The second detector as the scanner calls it: features of one item, the model's score, and,
 * when the score refuses, a finding a human can read (the feature that contributed most, the
 * field and the text that fired it). Pure.
 */
import { featuresOf, type RuleHit } from './features.js';
import { scoreFeatures, type Score } from './model.js';
import type { FindingCode } from './findings.js';
import type { VisibleString } from './strings.js';

const RULE_CODES: Record<string, FindingCode> = {
  directive: 'agent_directive',
  sensitive: 'credential_access',
  exfil: 'exfiltration',
  conceal: 'concealment',
  crosstool: 'cross_tool_steering',
  markup: 'hidden_markup',
  param: 'exfiltration_parameter',
  payload_param: 'exfiltration_parameter',
  override: 'instruction_override',
  harvest: 'credential_access',
  command: 'dangerous_command',
  hidden: 'hidden_characters',
  blob: 'encoded_payload',
  harm: 'harmful_capability',
};

/** Which finding a feature stands for. */
export const codeOfFeature = (id: string): FindingCode => {
  const first = id.split('&').find((p) => !p.startsWith('purpose:narrow') && !p.startsWith('dir:')) ?? id;
  if (first.startsWith('rule:')) return RULE_CODES[first.split(':')[1] ?? ''] ?? 'agent_directive';
  if (first.startsWith('flow:') || first.startsWith('sink:') || first.startsWith('manner:')) return 'data_flow';
  if (first.startsWith('src:') && id.includes('sink:')) return 'data_flow';
  if (first.startsWith('purpose:') || first.startsWith('param:') || first.startsWith('src:') || id.startsWith('purpose:narrow'))
    return 'purpose_mismatch';
  if (first.startsWith('ref:')) return 'cross_tool_steering';
  if (first.startsWith('view:')) return 'obfuscated_text';
  return 'agent_directive';
};

export interface SecondOpinion {
  score: Score;
  /** Set when the second detector refuses. */
  refusal?: { code: FindingCode; field: string; matched: string; feature: string };
  /** The refusal is a declaration no honest tool makes, not a score over the threshold. */
  declared?: boolean;
}

/**
 * Declarations no honest tool makes, refused whatever the model's score: a sensitive source moved
 * to an outside sink in one sentence (harm stated as a feature), and a narrow purpose that reaches
 * for credential files.
 */
const DECLARED: [RegExp, FindingCode][] = [
  [/^flow:(?:credfile|secrets|conversation|private)$/, 'data_flow'],
  [/^purpose:narrow&src:credfile$/, 'purpose_mismatch'],
];

export const secondOpinion = (strings: VisibleString[], hits: RuleHit[], siblings: ReadonlySet<string>): SecondOpinion => {
  const score = scoreFeatures(featuresOf(strings, hits, siblings));
  for (const [re, code] of DECLARED) {
    const f = score.contributions.find((c) => re.test(c.feature.id));
    if (f) return { score, declared: true, refusal: { code, field: f.feature.field, matched: f.feature.evidence, feature: f.feature.id } };
  }
  if (!score.refused) return { score };
  // The finding names what the item DOES (a flow, a reach, a foreign tool) before a rule echo.
  const positive = score.contributions.filter((c) => c.weight * c.feature.value > 0);
  const first = positive[0];
  const telling = positive.find(
    (c) =>
      !/^(?:rule:|dir:|shape:|lang:|manner:|purpose:narrow$)/.test(c.feature.id) &&
      first &&
      c.weight * c.feature.value >= (first.weight * first.feature.value) / 3,
  );
  const top = telling ?? first ?? score.contributions[0];
  if (!top) return { score };
  return {
    score,
    refusal: { code: codeOfFeature(top.feature.id), field: top.feature.field, matched: top.feature.evidence, feature: top.feature.id },
  };
};
