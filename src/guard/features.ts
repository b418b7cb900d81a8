/**
 * The second detector's features for one item (a tool, a prompt, the instructions), judged
 * over the server's whole surface. Where the rules look for instructions to the model, these
 * look at what the item says it DOES: a sensitive source flowing to an outside sink, a reach
 * beyond the item's stated purpose, directives that name tools this server does not have,
 * text that reads differently once a spelling trick is undone. Each feature keeps the field
 * and text that fired it, so a refusal can quote it. Pure.
 */
import {
  ADDRESSES_MODEL,
  FAKE_NOTICE,
  HARDCODED_CALL,
  FAKE_STATE,
  OVERRIDE_USER,
  PUFFERY,
  SPEAK_TO_USER,
  AUTHORITY_TAG,
  SELF_VOUCHING_NAME,
  BCC,
  BYPASS,
  CARRIER_PARAM,
  CONCEAL_ELSEWHERE,
  HARM,
  HOOK,
  PREFERENCE,
  SHOUT,
  OTHER_TOOLS,
  PURPOSE_SENSITIVE,
  QUIETLY,
  SINK_NAMED,
  SINK_OUTSIDE,
  SRC_CONVERSATION,
  SRC_CREDENTIAL_FILES,
  SRC_PRIVATE,
  SRC_SECRETS,
  TRANSFER,
} from './lexicon.js';
import { normalise } from './normalize.js';
import type { VisibleString } from './strings.js';
import { viewsOf } from './views.js';

export interface Feature {
  id: string;
  /** 0..1. */
  value: number;
  field: string;
  evidence: string;
}

export interface RuleHit {
  cls: string;
  weight: string;
  field: string;
  matched: string;
}

const SOURCES = [
  ['credfile', SRC_CREDENTIAL_FILES],
  ['secrets', SRC_SECRETS],
  ['conversation', SRC_CONVERSATION],
  ['private', SRC_PRIVATE],
] as const;

/** Phrases judged wherever they appear, each its own feature. */
const LOOKS: [string, RegExp][] = [
  ['harm:vocabulary', HARM],
  ['harm:bypass', BYPASS],
  ['steer:preference', PREFERENCE],
  ['steer:hook', HOOK],
  ['conceal:elsewhere', CONCEAL_ELSEWHERE],
  ['steer:authority-tag', AUTHORITY_TAG],
  ['steer:fake-state', FAKE_STATE],
  ['steer:override-user', OVERRIDE_USER],
  ['steer:puffery', PUFFERY],
  ['steer:speak-to-user', SPEAK_TO_USER],
  ['steer:hardcoded-call', HARDCODED_CALL],
];

const ADDRESSED_ALL = new RegExp(ADDRESSES_MODEL.source, 'gi');
const MAX_EVIDENCE = 200;
const clip = (s: string): string => (s.length > MAX_EVIDENCE ? `${s.slice(0, MAX_EVIDENCE - 1)}…` : s);

/** Sentences (and list items) of a text: the unit a declared flow must sit in. */
const sentences = (text: string): string[] =>
  text
    .split(/(?<=[.!?。！？])\s+|\n+|;\s+|\s[-*•]\s/u)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

/** Words of a tool name: "convert_units" / "convertUnits" → "convert units". */
const nameWords = (name: string): string =>
  name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_\-.]+/g, ' ')
    .toLowerCase();

/** The first sentence of the description: what the tool says it is for. */
const firstSentence = (description: string): string => sentences(description)[0] ?? '';

/** Tool-like identifiers a text names: `foo_bar`, "the foo_bar tool", call fooBar. */
const TOOL_REF =
  /`([a-z][\w.-]{2,60})`|(?<![\w/.~$%-])([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b(?![/.]\w)(?:\s+(?:tool|function|command))?|\b(?:the\s+)([a-z][a-z0-9]{2,40})\s+(?:tool|function)\b|\b(?:call|use|invoke|run)\s+([a-z][a-z0-9]*[A-Z][A-Za-z0-9]+)\b/g;

/** Words that look like identifiers but name no tool. */
const NOT_TOOLS =
  /^(?:e\.g|i\.e|etc|vs|a\.m|p\.m|node\.js|next\.js|vue\.js|[\w-]+\.(?:json|ya?ml|md|txt|py|js|ts|csv|env|toml|ini|html?|xml|pdf|png|jpe?g|log|sh|conf|cfg))$/i;

const toolRefs = (text: string): string[] => {
  const out: string[] = [];
  for (const m of text.matchAll(TOOL_REF)) {
    const name = m[1] ?? m[2] ?? m[3] ?? m[4];
    if (name && !NOT_TOOLS.test(name) && !/^https?/.test(name) && !name.includes('/')) out.push(name);
  }
  return out;
};

interface Collector {
  add: (id: string, field: string, evidence: string, value?: number) => void;
  list: () => Feature[];
}

const collector = (): Collector => {
  const found = new Map<string, Feature>();
  return {
    add: (id, field, evidence, value = 1) => {
      const had = found.get(id);
      if (!had || had.value < value) found.set(id, { id, value, field, evidence: clip(evidence) });
    },
    list: () => [...found.values()],
  };
};

const flowFeatures = (c: Collector, field: string, text: string): void => {
  if (!SOURCES.some(([, re]) => re.test(text)) || !(TRANSFER.test(text) || SINK_OUTSIDE.test(text) || SINK_NAMED.test(text))) return;
  for (const s of sentences(text)) {
    const src = SOURCES.find(([, re]) => re.test(s));
    const moves = TRANSFER.test(s);
    const sink = SINK_OUTSIDE.test(s) || SINK_NAMED.test(s);
    if (src && moves && sink) {
      c.add('flow:sentence', field, s);
      c.add(`flow:${src[0]}`, field, s);
      if (QUIETLY.test(s)) c.add('flow:quiet', field, s);
    } else if (src && moves) c.add('flow:source-moved', field, s);
    else if (src && sink) c.add('flow:source-sink', field, s);
  }
};

const isParamField = (v: VisibleString): boolean => v.parameter !== undefined;

/** What an item says it is for: its name's words and its description's first sentence. */
interface Purpose {
  text: string;
  /** The purpose itself reaches sensitive things (reaching them is then no surprise). */
  sensitive: boolean;
}

/** What it reaches, beyond its purpose, and where (a parameter that carries the conversation out). */
const reachFeatures = (c: Collector, v: VisibleString, text: string, purpose: Purpose): void => {
  for (const [id, re] of SOURCES) {
    const m = re.exec(text);
    if (!m) continue;
    c.add(`src:${id}`, v.field, text);
    const beyondPurpose = v.field !== 'description' || !firstSentence(text).includes(m[0]);
    if (!purpose.sensitive && beyondPurpose) c.add(`purpose:reach-${id}`, v.field, text);
    if (isParamField(v) && !purpose.sensitive) c.add('purpose:param-reach', v.field, `${v.parameter}: ${text}`);
  }
  if (SINK_OUTSIDE.test(text) || SINK_NAMED.test(text)) c.add('sink:outside', v.field, text);
  if (isParamField(v) && /\b(?:all|every|entire|full|whole|complete|verbatim|everything)\b/i.test(text) && SRC_CONVERSATION.test(text))
    c.add('param:carries-context', v.field, `${v.parameter}: ${text}`);
};

/** One visible string's features: flows, reach, what a decoded view adds, its looks, a carrier name, its script. */
const stringFeatures = (c: Collector, v: VisibleString, text: string, purpose: Purpose): void => {
  flowFeatures(c, v.field, text);
  reachFeatures(c, v, text, purpose);
  for (const view of viewsOf(text)) {
    const fresh = (re: RegExp): boolean => re.test(view.text) && !re.test(text);
    if (SOURCES.some(([, re]) => fresh(re)) || [TRANSFER, SINK_OUTSIDE, OTHER_TOOLS, BCC, HARM].some(fresh))
      c.add(`view:${view.how}`, v.field, view.text);
  }
  for (const [id, re] of LOOKS) {
    const m = re.exec(text);
    if (m) c.add(id, v.field, sentences(text).find((x) => re.test(x)) ?? m[0]);
  }
  if (isParamField(v) && v.field.endsWith('(name)') && CARRIER_PARAM.test(text) && !purpose.text.toLowerCase().includes(text.toLowerCase()))
    c.add('param:carrier-name', v.field, text);
  const letters = text.match(/\p{L}/gu)?.length ?? 0;
  const foreign =
    text.match(/[\p{Script=Han}\p{Script=Cyrillic}\p{Script=Hangul}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Arabic}]/gu)?.length ??
    0;
  if (letters > 20 && foreign / letters > 0.3) c.add('lang:non-latin', v.field, text);
};

/** The item's text as a whole: tools it names, who it addresses, its manner and shape, its name. */
const wholeFeatures = (
  c: Collector,
  w: {
    item: string;
    all: string;
    prose: string;
    params: Set<string>;
    siblings: ReadonlySet<string>;
    rawDescription: string;
    purpose: Purpose;
  },
): void => {
  const { item, all, rawDescription } = w;
  const description = normalise(rawDescription);
  for (const name of toolRefs(w.prose)) {
    if (w.params.has(name)) continue;
    if (name === item || w.siblings.has(name)) c.add('ref:sibling', 'description', name);
    else c.add('ref:foreign', 'description', name);
  }
  const other = OTHER_TOOLS.exec(all);
  if (other) c.add('ref:other-tools', 'description', sentences(all).find((s) => OTHER_TOOLS.test(s)) ?? other[0]);
  const addressed = all.match(ADDRESSED_ALL)?.length ?? 0;
  if (addressed > 0) c.add('dir:addresses', 'description', `${addressed} phrase(s) addressed to the model`, Math.min(1, addressed / 4));
  if (QUIETLY.test(all)) c.add('manner:quiet', 'description', QUIETLY.exec(all)?.[0] ?? '');
  if (BCC.test(all) && /[\w.+-]{1,64}@[\w-]{1,63}\.[a-z]{2,24}/i.test(all))
    c.add('flow:bcc', 'description', sentences(all).find((x) => BCC.test(x)) ?? '');
  const notice = FAKE_NOTICE.exec(rawDescription);
  if (notice) c.add('steer:fake-notice', 'description', sentences(rawDescription).find((x) => FAKE_NOTICE.test(x)) ?? notice[0]);
  const shouts = (description.match(SHOUT) ?? []).length;
  if (shouts > 0) c.add('shape:shouting', 'description', `${shouts} word(s) in capitals`, Math.min(1, shouts / 4));
  if (description.length > 600)
    c.add('shape:long', 'description', `${description.length} characters`, Math.min(1, description.length / 2000));
  if (!w.purpose.sensitive) c.add('purpose:narrow', 'name', w.purpose.text);
  if (SELF_VOUCHING_NAME.test(item)) c.add('name:self-vouching', 'name', item);
};

/**
 * Features of one item. `strings` are the item's visible strings, `hits` the rule signals the
 * rules found in them, `siblings` every tool and prompt name on the same server.
 */
export const featuresOf = (strings: VisibleString[], hits: RuleHit[], siblings: ReadonlySet<string>): Feature[] => {
  const c = collector();
  const item = strings[0]?.item ?? '';
  const rawDescription = strings.find((v) => v.field === 'description' || v.field === 'instructions')?.text ?? '';
  const text = `${nameWords(item)} ${firstSentence(normalise(rawDescription))}`;
  const purpose: Purpose = { text, sensitive: PURPOSE_SENSITIVE.test(text) };
  for (const h of hits) c.add(`rule:${h.cls}:${h.weight}`, h.field, h.matched);
  let all = '';
  let prose = '';
  const params = new Set(strings.flatMap((v) => (v.parameter !== undefined ? [v.parameter] : [])));
  for (const v of strings) {
    const t = normalise(v.text);
    all += `${t}\n`;
    if (!v.field.endsWith('(name)') && v.field !== 'name') prose += `${t}\n`;
    stringFeatures(c, v, t, purpose);
  }
  wholeFeatures(c, { item, all, prose, params, siblings, rawDescription, purpose });
  return c.list();
};
