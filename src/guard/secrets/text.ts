import { type Normalised, readThrough, readThroughPaced } from './normalise.js';
import { accepts, RULES, type SecretRule } from './rules.js';

/** One secret found in one string: which rule, and where (for redaction; never logged). */
export interface TextHit {
  rule: string;
  start: number;
  end: number;
}

/** No rule matches fewer characters than this (the shortest credential shapes are longer). */
export const MIN_SECRET_CHARS = 8;
/** Hits kept per string: enough to redact a dump of keys; a bound on what one string can cost. */
export const MAX_HITS = 256;
/**
 * Every rule's keywords in one pattern (case-insensitive, so a superset): a rule can match only text
 * holding one of them. Most short strings of honest traffic (names, ids, dates, prose) hold none,
 * and then cost this one test instead of a keyword check per rule. rules.test checks it covers them.
 */
export const ANY_KEYWORD =
  /-----BEGIN|A(?:KIA|SIA|BIA|CCA|3T|Iza)|service_account|Q~|gh[pousr]_|github_pat_|glpat-|xox[abeprs]-|[sr]k_live_|sk-|eyJ|=|secret|token|passw|pwd|key|credential|bearer/i;
/** Strings up to this length are checked for a rule's keywords before the rule runs. */
const PREFILTER_MAX = 4096;

const wants = (rule: SecretRule, text: string, lower: () => string): boolean => {
  if (rule.keywords) for (const k of rule.keywords) if (text.includes(k)) return true;
  if (rule.lowerKeywords) {
    const l = lower();
    for (const k of rule.lowerKeywords) if (l.includes(k)) return true;
  }
  return false;
};

/** One rule's hits in one string, appended to `hits` (bounded by MAX_HITS). */
const ruleHits = (rule: SecretRule, text: string, hits: TextHit[]): void => {
  // The rule's own global pattern, from the start (scanning is synchronous: nothing else runs it meanwhile).
  const re = rule.re;
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null && hits.length < MAX_HITS; m = re.exec(text)) {
    if (m[0].length === 0) {
      re.lastIndex += 1;
      continue;
    }
    if (accepts(rule, m, text)) hits.push({ rule: rule.id, start: m.index, end: blockEnd(rule, text, m.index + m[0].length) });
  }
  re.lastIndex = 0;
};

/** Characters before a window that a match in it may read (look-behinds: 5; generic_secret's name: 40). */
const BACK = 64;
/** Characters past a window's end that a match starting in it may reach: every rule but an `unbounded` one is shorter. */
const REACH = 1024;
/** Characters of a long string one step of one rule's pass covers (~0.3-0.6 ms). */
export const SCAN_WINDOW = 512 * 1024;

/**
 * ruleHits for the matches that start in [from, to), continuing the one pass from `carry` (where
 * the pass stood after the windows before): the same matches, accepted or not, as the pass over the
 * whole string, since a match of a bounded rule and all it looks at lie within the slice read.
 * Returns where the pass goes on. Synchronous: the rule's shared pattern is not held across a pause.
 */
const ruleHitsIn = (rule: SecretRule, text: string, from: number, to: number, carry: number, hits: TextHit[]): number => {
  const base = Math.max(0, from - BACK);
  const slice = text.slice(base, Math.min(text.length, to + REACH));
  const re = rule.re;
  let next = Math.max(from, carry);
  re.lastIndex = next - base;
  for (let m = re.exec(slice); m !== null && hits.length < MAX_HITS; m = re.exec(slice)) {
    const start = base + m.index;
    // The leftmost match from `next` on starts past this window: the next window finds it.
    if (start >= to) break;
    if (m[0].length === 0) {
      re.lastIndex += 1;
      next = base + re.lastIndex;
      continue;
    }
    next = start + m[0].length;
    if (accepts(rule, m, slice)) hits.push({ rule: rule.id, start, end: blockEnd(rule, text, next) });
  }
  re.lastIndex = 0;
  return Math.max(next, to);
};

/** One rule's pass over a long string, a window a step (an unbounded rule's in one step). */
const ruleHitsPaced = async (
  rule: SecretRule,
  text: string,
  hits: TextHit[],
  pause: () => Promise<void>,
  window: number,
): Promise<void> => {
  if (rule.unbounded || text.length <= window) {
    ruleHits(rule, text, hits);
    return;
  }
  let carry = 0;
  for (let from = 0; from < text.length && hits.length < MAX_HITS; from += window) {
    if (from > 0) await pause();
    carry = ruleHitsIn(rule, text, from, Math.min(text.length, from + window), carry, hits);
  }
};

/** Whether a rule is worth running on a string (the keyword prefilter, and the server's `ignore`). */
const runs = (rule: SecretRule, text: string, ignore: ReadonlySet<string> | undefined, lower: () => string): boolean =>
  // On a short string the keywords decide cheaply; on a long one each absent keyword costs a
  // full pass (measured: ~50 passes, 12 ms a MB), more than running the rule, whose literal start V8 seeks fast.
  !ignore?.has(rule.id) && !((text.length < PREFILTER_MAX || rule.prefilterAlways) && !wants(rule, text, lower));

/** Whether no rule can match (too short, or short and without any rule's keyword). */
const clean = (text: string): boolean => text.length < MIN_SECRET_CHARS || (text.length < PREFILTER_MAX && !ANY_KEYWORD.test(text));

/**
 * ANY_KEYWORD, or where a disguise can be: a character outside ASCII, a control character, a
 * percent-escape (`gh%70_…`, `gh<DEL>p_…` hold no keyword as they are). One test, on short strings only.
 */
const KEYWORD_OR_WIDE = new RegExp(`${ANY_KEYWORD.source}|[^\\x09\\x0a\\x0d\\x20-\\x7e]|%[0-9a-f]{2}`, 'i');

/**
 * Whether a string is worth scanning at all: false when it is too short and all ASCII, or short and
 * holds neither a keyword nor a character outside ASCII. One test for nearly every string.
 */
const worthScanning = (text: string): boolean => {
  if (text.length < MIN_SECRET_CHARS) {
    for (let i = 0; i < text.length; i += 1) if (text.charCodeAt(i) > 0x7f) return true;
    return false;
  }
  return text.length >= PREFILTER_MAX || KEYWORD_OR_WIDE.test(text);
};

const lowerOf = (text: string): (() => string) => {
  let lowered: string | undefined;
  return () => {
    lowered ??= text.toLowerCase();
    return lowered;
  };
};

/** The rules' hits in one string as it is (scanText without reading through disguises). */
const scanRules = (text: string, ignore: ReadonlySet<string> | undefined, prefiltered = false): TextHit[] => {
  if (prefiltered ? text.length < MIN_SECRET_CHARS : clean(text)) return [];
  const lower = lowerOf(text);
  const hits: TextHit[] = [];
  for (const rule of RULES) if (runs(rule, text, ignore, lower)) ruleHits(rule, text, hits);
  return hits;
};

/**
 * `hits` (found in a string as it is), and `more` (found in its normalised form `n`) at their ranges
 * in the original, each once, bounded by MAX_HITS. Both, not the normalised alone: removing a hidden
 * character can join a token to the word before it and so hide it from a boundary check.
 */
export const withNormalised = (hits: TextHit[], n: Normalised, more: readonly TextHit[]): TextHit[] => {
  if (more.length === 0) return hits;
  const seen = new Set(hits.map((h) => `${h.rule} ${h.start} ${h.end}`));
  for (const h of more) {
    if (hits.length >= MAX_HITS) break;
    const [start, end] = n.map.range(h.start, h.end);
    const id = `${h.rule} ${start} ${end}`;
    if (!seen.has(id)) {
      seen.add(id);
      hits.push({ rule: h.rule, start, end });
    }
  }
  return hits;
};

/** More places to look in a string than the rules (the values a host injects). */
export interface Finder {
  find(text: string): TextHit[];
}

/**
 * Every secret the rules (and `also`, when given) find in one string, also through disguises (a
 * zero-width space or soft hyphen inside a token, full-width or other compatibility letters). Pure
 * and linear: a rule runs only when one of its keywords is present, and each pattern is linear by
 * construction (see rules.ts). `ignore` names rules a server's policy turned off. Text that needs
 * no second reading (all ASCII: nearly all of it) costs what it did: one test decides both.
 */
export const scanText = (text: string, ignore?: ReadonlySet<string>, also?: Finder): TextHit[] => {
  const worth = worthScanning(text);
  const hits = worth ? scanRules(text, ignore, true) : [];
  if (also) for (const h of also.find(text)) hits.push(h);
  const n = worth ? readThrough(text) : undefined;
  if (!n) return hits;
  const more = scanRules(n.text, ignore);
  if (also) for (const h of also.find(n.text)) more.push(h);
  return withNormalised(hits, n, more);
};

/** Strings at least this long are scanned a rule at a time by `scanTextPaced`. */
export const PACED_CHARS = 128 * 1024;

const scanRulesPaced = async (
  text: string,
  ignore: ReadonlySet<string> | undefined,
  pause: () => Promise<void>,
  window: number,
): Promise<TextHit[]> => {
  if (clean(text)) return [];
  const lower = lowerOf(text);
  const hits: TextHit[] = [];
  for (const rule of RULES) {
    if (!runs(rule, text, ignore, lower)) continue;
    await pause();
    await ruleHitsPaced(rule, text, hits, pause, window);
  }
  return hits;
};

/**
 * scanText for a long string, pausing (`pause`, e.g. a turn of the event loop) before each rule:
 * each rule is one pass of well under a millisecond a MB, so other lanes' messages are handled
 * between the passes instead of waiting for all of them (issue 19: a 3.9 MB answer's scan was one
 * 9 ms block). The same rules in the same order, through the same disguises: the same hits as scanText.
 * Without `ranges`, a hit found only through a disguise is placed on the whole string (no index of
 * the readings is kept: a scan that reports which rules matched, and where in the value, needs none).
 */
export const scanTextPaced = async (
  text: string,
  ignore: ReadonlySet<string> | undefined,
  pause: () => Promise<void>,
  also?: Finder,
  window = SCAN_WINDOW,
  ranges = true,
): Promise<TextHit[]> => {
  const hits = await scanRulesPaced(text, ignore, pause, window);
  if (also) for (const h of also.find(text)) hits.push(h);
  // Read through disguises a step at a time too (attack round 36: the reading was one block).
  const n = await readThroughPaced(text, pause, undefined, ranges);
  if (!n) return hits;
  const more = await scanRulesPaced(n.text, ignore, pause, window);
  if (also) for (const h of also.find(n.text)) more.push(h);
  return withNormalised(hits, n, more);
};

/** The longest private key block redaction looks for the END line of. */
const BLOCK_CHARS = 64 * 1024;

/** A private key's header is the finding; the block it opens (to its END line) is what redaction removes. */
const blockEnd = (rule: SecretRule, text: string, end: number): number => {
  if (rule.id !== 'private_key') return end;
  // Both searches read a bounded stretch (a slice is no copy): searched to the text's end, 256
  // headers without an END line in a 3.8 MB answer cost 233 ms of scanning.
  const at = text.slice(end, end + BLOCK_CHARS + 8).indexOf('-----END');
  if (at < 0 || at > BLOCK_CHARS) return Math.min(text.length, end + BLOCK_CHARS);
  const stop = end + at;
  const close = text.slice(stop + 8, stop + 8 + 256).indexOf('-----');
  // No closing dashes near the END line: everything after it is removed (as when there were none at all).
  return close < 0 ? text.length : stop + 8 + close + 5;
};

/** The string with every hit replaced by `[secret redacted: RULE]`. Overlapping hits merge. Pure. */
export const redactText = (text: string, hits: readonly TextHit[]): string => {
  const sorted = [...hits].sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const h of sorted) {
    if (h.end <= at) continue;
    const from = Math.max(at, h.start);
    out += `${text.slice(at, from)}[secret redacted: ${h.rule}]`;
    at = h.end;
  }
  return out + text.slice(at);
};
