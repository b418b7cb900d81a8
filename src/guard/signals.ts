/**
 * The signals of one model-visible string: hidden characters, each rule's match, parameter
 * targets, and encoded runs (base64, hex, percent, HTML entities) read as the model would read
 * them, each at its location. Pure; the scanner decides from them.
 */
import { decodedRuns } from './decode.js';
import { findHidden, normalise } from './normalize.js';
import { plainSightOf } from './plain-sight.js';
import { PARAM_NAME_STRONG, PARAM_NAME_TARGET, PARAM_TARGET, RULES, type SignalClass, type Weight } from './rules.js';
import type { VisibleString } from './strings.js';

export interface Signal {
  cls: SignalClass | 'hidden' | 'blob' | 'param';
  weight: Weight;
  id: string;
  at: VisibleString;
  matched: string;
  /** The rule's own match, for rules that name a tool. */
  hit?: string;
}

const B64 = /[A-Za-z0-9+/]{60,}={0,2}/g;
const HEX = /\b[0-9a-f]{128,}\b/gi;
const MAX_MATCHED = 200;

/** The sentence around a match: what an operator needs to see to judge it. */
const sentenceAround = (text: string, index: number, length: number): string => {
  const starts = [
    text.lastIndexOf('. ', index),
    text.lastIndexOf('! ', index),
    text.lastIndexOf('? ', index),
    text.lastIndexOf('\n', index),
  ];
  const start = Math.max(...starts) + 1;
  const endCandidates = ['. ', '! ', '? ', '\n'].map((d) => text.indexOf(d, index + length)).filter((i) => i >= 0);
  const end = endCandidates.length > 0 ? Math.min(...endCandidates) + 1 : text.length;
  const s = text.slice(start, end).trim();
  return s.length > MAX_MATCHED ? `${text.slice(index, index + Math.min(length, MAX_MATCHED)).trim()}` : s;
};

const decodeBase64Text = (blob: string): string | undefined => {
  try {
    const s = Buffer.from(blob, 'base64').toString('utf8');
    const printable = s.replace(/[^\x20-\x7e\n]/g, '').length / Math.max(1, s.length);
    const letters = (s.match(/[a-z ]/gi) ?? []).length / Math.max(1, s.length);
    return printable > 0.95 && letters > 0.7 ? s : undefined;
  } catch {
    return undefined;
  }
};

/** Text the reader sees but the operator does not (zero-width, bidi, tags, …), with what it decodes to. */
const hiddenSignals = (v: VisibleString): Signal[] =>
  findHidden(v.text).map((h) => ({
    cls: 'hidden',
    weight: 'strong',
    id: h.kind,
    at: v,
    matched: h.decoded ? `${h.shown} (decodes to "${h.decoded.slice(0, 160)}")` : h.shown,
  }));

/** Each rule that hears the normalised text (unless its `unless` phrase comes just before). */
const ruleSignals = (v: VisibleString, text: string): Signal[] => {
  const out: Signal[] = [];
  for (const r of RULES) {
    const m = r.re.exec(text);
    if (m && r.unless?.test(text.slice(Math.max(0, m.index - 60), m.index))) continue;
    if (m)
      out.push({
        cls: r.cls,
        weight: r.weight,
        id: r.id,
        at: v,
        matched: sentenceAround(text, m.index, m[0].length),
        hit: m[0],
      });
  }
  return out;
};

/** A parameter's description that targets something else, or a parameter name that does. */
const paramSignals = (v: VisibleString, text: string): Signal[] => {
  const out: Signal[] = [];
  const m = PARAM_TARGET.exec(text);
  const isName = v.field.endsWith('(name)');
  if (m && !isName)
    out.push({
      cls: 'param',
      weight: 'strong',
      id: 'param-target',
      at: v,
      matched: sentenceAround(text, m.index, m[0].length),
    });
  if (isName && PARAM_NAME_TARGET.test(text)) out.push({ cls: 'param', weight: 'medium', id: 'param-name', at: v, matched: text });
  if (isName && PARAM_NAME_STRONG.test(text)) out.push({ cls: 'param', weight: 'strong', id: 'param-name-strong', at: v, matched: text });
  return out;
};

/**
 * Encoded runs (base64, hex, percent, HTML entities) are read as the model would read them: a
 * decoded run that says anything the rules hear is an encoded payload at the run's location. A
 * long base64 run that is not text, and any long hex run, are blobs in themselves.
 */
const encodedSignals = (v: VisibleString, text: string): Signal[] => {
  const out: Signal[] = [];
  for (const d of decodedRuns(v.text)) {
    const inner = signalsOf({ ...v, field: `${v.field}(${d.how})`, text: d.text }, 1);
    const plain = plainSightOf(normalise(d.text), v.field);
    if (inner.some((s) => s.weight !== 'weak') || plain.length > 0)
      out.push({
        cls: 'blob',
        weight: 'strong',
        id: d.how,
        at: { ...v, field: `${v.field}(${d.how})` },
        matched: `${d.raw.slice(0, 60)}${d.raw.length > 60 ? '…' : ''} (decodes to "${d.text.slice(0, 120)}")`,
      });
    out.push(...inner);
  }
  for (const m of text.matchAll(B64)) {
    if (m[0].length >= 160 && !decodeBase64Text(m[0]))
      out.push({ cls: 'blob', weight: 'strong', id: 'base64', at: v, matched: `${m[0].slice(0, 60)}…` });
  }
  for (const m of text.matchAll(HEX)) out.push({ cls: 'blob', weight: 'strong', id: 'hex', at: v, matched: `${m[0].slice(0, 60)}…` });
  return out;
};

export const signalsOf = (v: VisibleString, depth = 0): Signal[] => {
  const text = normalise(v.text);
  return [
    ...hiddenSignals(v),
    ...ruleSignals(v, text),
    ...(v.parameter !== undefined ? paramSignals(v, text) : []),
    ...(depth === 0 ? encodedSignals(v, text) : []),
  ];
};
