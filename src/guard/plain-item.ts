/**
 * The plain-sight rules over one item (a tool, prompt or resource): every string of it, each
 * finding at the exact field it fired in. A property name written as a sentence is read as one.
 * Pure.
 */
import { FINDING_TEXT, type Finding } from './findings.js';
import { normalise } from './normalize.js';
import { nameAsText, parameterSightOf, type PlainHit, plainSightOf } from './plain-sight.js';
import { RULES } from './rules.js';
import { multilingualSightOf } from './plain-multilingual.js';
import { steeringOf } from './plain-steer.js';
import type { VisibleString } from './strings.js';

const hitsOf = (v: VisibleString, about: string, siblings: ReadonlySet<string>): PlainHit[] => {
  const t = normalise(v.text);
  const sentence = v.field.endsWith('(name)') ? nameAsText(v.text) : undefined;
  const out = [
    ...plainSightOf(sentence ?? t, v.field),
    ...multilingualSightOf(t, v.field, v.item),
    ...(sentence ? [] : steeringOf(t, v.item, siblings)),
    ...(v.parameter !== undefined ? parameterSightOf(t, v.field, about) : []),
  ];
  // A parameter's name has no honest reason to address the agent: one strong or medium signal is enough.
  if (sentence && RULES.some((r) => r.weight !== 'weak' && r.re.test(sentence)))
    out.push({ code: 'exfiltration_parameter', id: 'name-as-text', matched: sentence });
  return out;
};

export const plainFindings = (g: VisibleString[], siblings: ReadonlySet<string> = new Set()): Finding[] => {
  const about = g.find((v) => v.field === 'description')?.text ?? '';
  const out: Finding[] = [];
  for (const v of g)
    for (const h of hitsOf(v, about, siblings))
      if (!out.some((f) => f.code === h.code))
        out.push({ code: h.code, kind: v.kind, item: v.item, field: v.field, matched: h.matched, finding: FINDING_TEXT[h.code] });
  return out;
};
