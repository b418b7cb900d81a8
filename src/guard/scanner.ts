import type { Weight } from './rules.js';
import { type SecondOpinion, secondOpinion } from './second.js';
import { type Signal, signalsOf } from './signals.js';
import { promptStrings, resourceStrings, type SurfaceKind, toolStrings, type VisibleString } from './strings.js';
import { nameFindings, oversized } from './names.js';
import { FINDING_TEXT, type Finding, type FindingCode } from './findings.js';
import { plainFindings } from './plain-item.js';
import { contextFindings, type GuardContext } from './context.js';
export type { GuardContext } from './context.js';

export type { Finding, FindingCode } from './findings.js';
export { FINDING_TEXT } from './findings.js';

const has = (sigs: Signal[], cls: Signal['cls'], min: Weight = 'weak'): Signal | undefined => {
  const rank = { weak: 0, medium: 1, strong: 2 };
  return sigs.find((s) => s.cls === cls && rank[s.weight] >= rank[min]);
};

const finding = (code: FindingCode, s: Signal): Finding => ({
  code,
  kind: s.at.kind,
  item: s.at.item,
  field: s.at.field,
  matched: s.matched,
  finding: FINDING_TEXT[code],
});

/**
 * Decides one item (a tool, a prompt, a resource, the instructions) from all of its signals:
 * a strong signal refuses on its own; weak and medium signals refuse only in the combinations
 * below, so an honest "you must provide an API key" never does. Pure and deterministic.
 */
const decide = (sigs: Signal[]): Finding[] => {
  const out: Finding[] = [];
  const add = (code: FindingCode, s: Signal | undefined): void => {
    if (s && !out.some((f) => f.code === code)) out.push(finding(code, s));
  };
  add('hidden_characters', has(sigs, 'hidden', 'strong'));
  add('hidden_markup', has(sigs, 'markup', 'strong'));
  // An HTML comment is hidden from people but read by the model: refused when it says anything aimed at the agent.
  const comment = has(sigs, 'markup', 'medium');
  if (comment && sigs.some((s) => s !== comment && s.cls !== 'sensitive')) add('hidden_markup', comment);
  add('encoded_payload', has(sigs, 'blob', 'strong'));
  add('instruction_override', has(sigs, 'override', 'strong'));
  add('concealment', has(sigs, 'conceal', 'strong'));
  add('exfiltration_parameter', has(sigs, 'param', 'strong'));
  add('cross_tool_steering', has(sigs, 'crosstool', 'strong'));
  add('credential_access', has(sigs, 'harvest', 'strong'));
  add('dangerous_command', has(sigs, 'command', 'strong'));
  add('harmful_capability', has(sigs, 'harm', 'strong'));

  // A schema VALUE (enum, default, const, example, title) has no honest reason to address the
  // agent or to name a credential: there one directive or one key path is enough.
  const inValue = sigs.find(
    (s) =>
      /^(?:inputSchema|outputSchema)\..*(?:\.enum\[\d+\]|\.default|\.const|\.examples\[\d+\]|\.title)$/.test(s.at.field) &&
      ((s.cls === 'sensitive' && s.weight === 'strong') || (s.cls === 'directive' && s.weight !== 'weak') || s.cls === 'exfil'),
  );
  if (inValue) add(inValue.cls === 'sensitive' ? 'credential_access' : 'agent_directive', inValue);

  const directive = has(sigs, 'directive');
  const exfil = has(sigs, 'exfil', 'medium');
  const secretStrong = has(sigs, 'sensitive', 'strong');
  const conceal = has(sigs, 'conceal');
  const cross = has(sigs, 'crosstool', 'medium');
  const paramName = has(sigs, 'param', 'medium');
  // Key material and a directive in the same string; across fields (a "private key" parameter and a
  // "You MUST" elsewhere) they are two honest sentences, not a flow.
  const near = secretStrong && sigs.find((s) => s.cls === 'directive' && s.at.field === secretStrong.at.field);
  if (secretStrong && (near || exfil || conceal)) add('credential_access', near && near.id !== 'very-important' ? near : secretStrong);
  const inField = (cls: Signal['cls'], f: Signal | undefined): boolean =>
    f !== undefined && sigs.some((x) => x.cls === cls && x.at.field === f.at.field);
  if (exfil && (inField('directive', exfil) || has(sigs, 'sensitive') || conceal)) add('exfiltration', exfil);
  if (cross && (inField('directive', cross) || exfil || conceal || has(sigs, 'sensitive'))) add('cross_tool_steering', cross);
  if (conceal && (directive || exfil)) add('concealment', conceal);
  if (paramName && (directive || secretStrong || exfil)) add('exfiltration_parameter', paramName);
  // Directives alone (however many) are what real servers write too: the second detector weighs
  // them with everything else the item says, instead of a rule refusing on their count.
  return out;
};

const byItem = (strings: VisibleString[]): VisibleString[][] => {
  const groups = new Map<string, VisibleString[]>();
  for (const v of strings) {
    const key = `${v.kind}\u0000${v.item}`;
    const g = groups.get(key) ?? [];
    g.push(v);
    groups.set(key, g);
  }
  return [...groups.values()];
};

export interface ItemVerdict {
  kind: SurfaceKind;
  item: string;
  /** What the rules found (empty: the rules admit it). */
  rules: Finding[];
  /** The second detector's view: advisory, shown by --explain and inspect; it refuses nothing. */
  second: SecondOpinion;
  findings: Finding[];
}

/**
 * A server telling the model how to use its OWN tools together ("call list_pages first", "use
 * browser_snapshot instead of this tool") is ordinary: a medium cross-tool signal whose named
 * tool is one of the server's own is dropped. One that names anything else stays.
 */
const aboutSiblings = (s: Signal, siblings: ReadonlySet<string>): boolean =>
  s.cls === 'crosstool' &&
  s.weight === 'medium' &&
  s.hit !== undefined &&
  (/\bthis\s+(?:tool|function)\b/i.test(s.hit) ||
    (s.hit.match(/[a-z][\w.-]{2,60}/gi) ?? []).some((w) => siblings.has(w.replace(/[.-]+$/, ''))));

/**
 * A directive that hands control back to the user ("confirm with the user before…", "wait for
 * explicit user instruction") is the opposite of an attack: its weak and medium directive and
 * cross-tool signals do not count.
 */
const DEFERS_TO_USER =
  /\b(?:confirm|check|verify)\s+(?:it\s+|this\s+)?with\s+the\s+user\b|\b(?:ask|wait\s+for)\s+(?:the\s+user|(?:explicit\s+|clear\s+)?(?:user\s+)?(?:instruction|confirmation|approval|permission)s?\s+(?:from\s+the\s+user)?)|\buser'?s?\s+(?:explicit\s+)?(?:approval|confirmation|consent|permission)\b|\bunless\s+the\s+user\s+(?:explicitly\s+)?(?:asks|requests|says)/i;
const defersToUser = (s: Signal): boolean =>
  s.weight !== 'strong' && (s.cls === 'directive' || s.cls === 'crosstool') && DEFERS_TO_USER.test(s.matched);

/** Sibling names in lower case, as the plain-sight rules compare them. */
const lowerSiblings = (s: ReadonlySet<string>): ReadonlySet<string> => new Set([...s].map((n) => n.toLowerCase()));

const judgeItem = (all: VisibleString[], siblings: ReadonlySet<string>): ItemVerdict => {
  const { findings: tooLong, read: g } = oversized(all);
  const sigs = g.flatMap((v) => signalsOf(v)).filter((s) => !aboutSiblings(s, siblings) && !defersToUser(s));
  const rules = decide(sigs);
  for (const f of plainFindings(g, lowerSiblings(siblings))) if (!rules.some((r) => r.code === f.code)) rules.push(f);
  const hits = sigs.map((s) => ({
    cls: s.cls,
    weight: s.weight,
    field: s.at.field,
    matched: s.matched,
  }));
  const second = secondOpinion(g, hits, siblings);
  const head = g[0] as VisibleString;
  // The second detector is advisory (its score and declarations are shown by --explain and
  // inspect) and refuses nothing: on the frozen blind split its score added 0.032 FPR for 0.041
  // recall, and its declarations 0.020 FPR for 0.005 recall (issue 23, scorings 1 and 2).
  return {
    kind: head.kind,
    item: head.item,
    rules,
    second,
    findings: [...rules, ...nameFindings(g), ...tooLong],
  };
};

/**
 * Verdicts already reached, keyed by the item's strings and its siblings: a host re-vets a surface
 * at every list change (one growing to 2,000 resources a call at a time made that quadratic). A
 * verdict depends only on its key; the caller bounds the memo's size.
 */
export type VerdictMemo = Map<string, ItemVerdict>;

/** Every item's verdict, with the server's tool and prompt names as the siblings each is judged against. */
export const judgeStrings = (strings: VisibleString[], siblings?: Iterable<string>, memo?: VerdictMemo): ItemVerdict[] => {
  const names = new Set(siblings ?? strings.filter((v) => v.field === 'name').map((v) => v.text));
  const sib = memo ? JSON.stringify([...names].sort()) : '';
  return byItem(strings).map((g) => {
    const key = memo ? `${sib}\u0000${JSON.stringify(g)}` : '';
    const v = memo?.get(key) ?? judgeItem(g, names);
    memo?.set(key, v);
    return v;
  });
};

export const scanStrings = (strings: VisibleString[], siblings?: Iterable<string>): Finding[] =>
  judgeStrings(strings, siblings).flatMap((v) => v.findings);

export interface Surface {
  tools?: Record<string, unknown>[];
  prompts?: Record<string, unknown>[];
  resources?: Record<string, unknown>[];
  resourceTemplates?: Record<string, unknown>[];
  instructions?: string;
  /** Names of the server's other tools when the surface holds only part of it (a corpus row). */
  siblings?: string[];
}

export const surfaceStrings = (s: Surface): VisibleString[] => [
  ...(s.tools ?? []).flatMap(toolStrings),
  ...(s.prompts ?? []).flatMap(promptStrings),
  ...(s.resources ?? []).flatMap((r) => resourceStrings(r, 'resource')),
  ...(s.resourceTemplates ?? []).flatMap((r) => resourceStrings(r, 'resourceTemplate')),
  ...(s.instructions
    ? [
        {
          kind: 'instructions' as const,
          item: 'instructions',
          field: 'instructions',
          text: s.instructions,
        },
      ]
    : []),
];

/** Scans a whole upstream surface. Empty result = admitted by layer two. */
export const scanSurface = (s: Surface, memo?: VerdictMemo, context?: GuardContext): Finding[] =>
  judgeSurface(s, memo, context).flatMap((v) => v.findings);

export const judgeSurface = (s: Surface, memo?: VerdictMemo, context?: GuardContext): ItemVerdict[] => {
  const strings = surfaceStrings(s);
  const names = strings.filter((v) => v.field === 'name' && (v.kind === 'tool' || v.kind === 'prompt')).map((v) => v.text);
  const verdicts = judgeStrings(strings, [...names, ...(s.siblings ?? [])], memo);
  // The catalog's findings are not memoised: they depend on the other servers, and are cheap.
  const extra = contextFindings(strings, { others: context?.others ?? [], own: [...(context?.own ?? []), ...(s.siblings ?? [])] });
  if (extra.length === 0) return verdicts;
  return verdicts.map((v) => {
    const mine = extra.filter((f) => f.kind === v.kind && f.item === v.item && !v.findings.some((x) => x.code === f.code));
    return mine.length > 0 ? { ...v, rules: [...v.rules, ...mine], findings: [...v.findings, ...mine] } : v;
  });
};

export const scanTool = (tool: Record<string, unknown>, siblings?: string[]): Finding[] =>
  scanStrings(toolStrings(tool), [String(tool.name ?? ''), ...(siblings ?? [])]);
