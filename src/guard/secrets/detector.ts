import { shannon, isPlaceholder } from './entropy.js';
import { INJECTED_RULE, InjectedSecrets } from './injected.js';
import { isSecretName } from './rules.js';
import { readThrough } from './normalise.js';
import { MAX_HITS, PACED_CHARS, redactText, SCAN_WINDOW, scanText, scanTextPaced, type TextHit } from './text.js';

/** A secret found in a JSON value: the rule and where. Never the value; safe to log and to send. */
export interface SecretFinding {
  rule: string;
  /** Where, from the scanned root (`arguments.context`, `content[0].text`). Keys are escaped and short. */
  path: string;
}

const MAX_FINDINGS = 32;
/** A key that is not a plain name is shown quoted and cut short (it is someone else's text). */
const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$-]{0,63}$/;

interface Node {
  v: unknown;
  key: string | number | undefined;
  parent: Node | undefined;
  /** The key itself held a secret: it is never written into a path. */
  hidden?: boolean;
  /** A container walked in part: the next index (of its elements, or of `keys`) to walk. */
  from?: number;
  /** An object walked in part: its keys, read once. */
  keys?: string[];
}

/**
 * Members of one array or object taken a visit: the rest wait on the stack as one node, so a step
 * never puts a million nodes on it at once (attack round 39: an answer of 500,000 strings in one
 * array was a single 120-180 ms step of the scan).
 */
const MEMBERS_A_VISIT = 4096;

const segment = (n: Node): string => {
  if (typeof n.key === 'number') return `[${n.key}]`;
  if (n.hidden) return '[<key holding a secret>]';
  const k = n.key ?? '';
  return PLAIN_KEY.test(k) ? `.${k}` : `[${JSON.stringify(k.length > 40 ? `${k.slice(0, 40)}…` : k).replace(/[^\x20-\x7e]/g, '?')}]`;
};

const pathOf = (root: string, n: Node): string => {
  const parts: string[] = [];
  for (let at: Node | undefined = n; at?.parent; at = at.parent) parts.push(segment(at));
  return root + parts.reverse().join('');
};

/** White space no reading removes (every `\s` but the BOM): a value holding one is no credential either way. */
const KEPT_SPACE = /[\t-\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/;

/** A string value next to a credential's name that looks like one (the JSON form of `api_key: …`). */
const secretByName = (name: string, value: string): string | undefined => {
  if (value.length < 16 || value.length > 4096 || KEPT_SPACE.test(value)) return undefined;
  const plain = byName(name, value);
  if (plain) return plain;
  // Read again through disguises (ｐａｓｓｗｏｒｄ, a zero-width space or a BOM inside the value).
  const n = readThrough(name);
  const v = readThrough(value);
  return n || v ? byName(n?.text ?? name, v?.text ?? value) : undefined;
};

const byName = (name: string, value: string): string | undefined => {
  if (value.length < 16 || value.length > 4096 || /\s/.test(value) || !isSecretName(name)) return undefined;
  if (isPlaceholder(value) || shannon(value) < 3.5 || !/\d/.test(value)) return undefined;
  return /secret[_-]?access[_-]?key/i.test(name) && /^[A-Za-z0-9/+]{40}$/.test(value) ? 'aws_secret_access_key' : 'generic_secret';
};

/** Values a paced scan walks per step: ~3 ms of a body of many small strings on these machines. */
export const WALK_STEP = 16_384;
/**
 * Characters of strings a paced scan reads per step besides: a step of many strings just short of
 * PACED_CHARS, each read at once, would otherwise add up (attack round 36: 128 strings of 250,000
 * percent-escapes in one answer are seconds of reading).
 */
export const WALK_CHARS = PACED_CHARS;

/** Whether a value can hold a secret: a string, or an object or array (whose keys and values can). */
const mayHold = (v: unknown): boolean => typeof v === 'string' || (v !== null && typeof v === 'object');

const isServiceAccount = (o: Record<string, unknown>): boolean =>
  o.type === 'service_account' && (typeof o.private_key === 'string' || typeof o.private_key_id === 'string');

/** Findings of one scan: each rule and path once, bounded (past the bound only a first injected value counts). */
class Findings {
  readonly out: SecretFinding[] = [];
  private readonly seen = new Set<string>();
  private injected = false;

  constructor(private readonly root: string) {}

  /** Whether a finding could still be recorded. */
  get open(): boolean {
    return this.out.length < MAX_FINDINGS || !this.injected;
  }

  add(rule: string, n: Node): void {
    // Past the bound, only a first injected value is still recorded: it decides what `log` may pass.
    if (this.out.length >= MAX_FINDINGS && (rule !== INJECTED_RULE || this.injected)) return;
    const path = pathOf(this.root, n);
    const id = `${rule} ${path}`;
    if (!this.seen.has(id)) {
      this.seen.add(id);
      this.out.push({ rule, path });
      this.injected ||= rule === INJECTED_RULE;
    }
  }
}

/**
 * The secret detector: the rules (rules.ts), the exact values this host injects, and the rules a
 * server's policy turned off. Pure given its inputs; one per host.
 */
export class SecretDetector {
  private readonly injected: InjectedSecrets;

  constructor(injectedValues: Iterable<string> = []) {
    this.injected = new InjectedSecrets(injectedValues);
  }

  /** Every hit in one string (rules first, then injected values, which no `ignore` turns off). */
  text(s: string, ignore?: ReadonlySet<string>): TextHit[] {
    return scanText(s, ignore, this.injected.size > 0 ? this.injected : undefined);
  }

  /** Every secret in a JSON value, with where it is. Iterative (any depth), linear in the value's size. */
  scan(value: unknown, root: string, ignore?: ReadonlySet<string>): SecretFinding[] {
    const f = new Findings(root);
    this.walk([{ v: value, key: undefined, parent: undefined }], f, ignore);
    return f.out;
  }

  /**
   * `scan`, with each string of PACED_CHARS or more scanned a rule at a time, `pause` before each
   * pass, and the value itself walked WALK_STEP values a step, `pause` between steps (a large
   * answer's scan, or a body of a million small values, then never holds the event loop for long).
   * The same findings, in the same order; synchronous (no promise) when the value holds no such
   * string and is walked in one step, as nearly every value is.
   */
  scanPaced(
    value: unknown,
    root: string,
    ignore: ReadonlySet<string> | undefined,
    pause: () => Promise<void>,
  ): SecretFinding[] | Promise<SecretFinding[]> {
    const f = new Findings(root);
    const long: Node[] = [];
    const stack: Node[] = [{ v: value, key: undefined, parent: undefined }];
    const walked = this.walk(stack, f, ignore, long, WALK_STEP);
    if (walked && long.length === 0) return f.out;
    return (async () => {
      for (let done = walked; !done; done = this.walk(stack, f, ignore, long, WALK_STEP)) await pause();
      for (const n of long) {
        if (!f.open) break;
        const s = n.v as string;
        const also = this.injected.size > 0 ? this.injected : undefined;
        // Findings name rules and paths, not ranges: the readings keep no index (scanTextPaced).
        for (const h of await scanTextPaced(s, ignore, pause, also, SCAN_WINDOW, false)) f.add(h.rule, n);
      }
      return f.out;
    })();
  }

  /**
   * Walks what is on `stack` into `f`, at most `step` values (then false: call again to go on; the
   * stack holds where it stopped); strings of PACED_CHARS or more go to `long` instead, when given.
   * A number, boolean or null holds nothing and is never put on the stack (a million of them in one
   * array are a million fewer allocations).
   */
  private walk(stack: Node[], f: Findings, ignore: ReadonlySet<string> | undefined, long?: Node[], step = Infinity): boolean {
    // A string costs a value and its characters; the step ends at WALK_STEP values or WALK_CHARS characters.
    const chars = step === Infinity ? Infinity : WALK_CHARS;
    for (let walked = 0, read = 0; stack.length > 0 && f.open; walked += 1) {
      if (walked >= step || read >= chars) return false;
      const n = stack.pop() as Node;
      const v = n.v;
      if (typeof v === 'string') {
        if (long && v.length >= PACED_CHARS) long.push(n);
        else {
          read += v.length;
          for (const h of this.text(v, ignore)) f.add(h.rule, n);
        }
      } else if (Array.isArray(v)) {
        const from = n.from ?? 0;
        const to = Math.min(v.length, from + MEMBERS_A_VISIT);
        if (to < v.length) stack.push({ ...n, from: to });
        for (let i = to - 1; i >= from; i -= 1) if (mayHold(v[i])) stack.push({ v: v[i], key: i, parent: n });
      } else if (v !== null && typeof v === 'object') {
        const o = v as Record<string, unknown>;
        if (n.from === undefined && !ignore?.has('gcp_service_account') && isServiceAccount(o)) f.add('gcp_service_account', n);
        const keys = n.keys ?? Object.keys(o);
        const from = n.from ?? 0;
        const to = Math.min(keys.length, from + MEMBERS_A_VISIT);
        if (to < keys.length) stack.push({ ...n, from: to, keys });
        for (let j = from; j < to; j += 1) {
          const k = keys[j] as string;
          const child: Node = { v: o[k], key: k, parent: n };
          const x = o[k];
          if (long && k.length >= PACED_CHARS) {
            // A long key is read paced too, its findings under the hidden key's path.
            long.push({ v: k, key: k, parent: n, hidden: true });
            if (mayHold(x)) stack.push(child);
            continue;
          }
          read += k.length;
          const keyHits = this.text(k, ignore);
          if (keyHits.length > 0) {
            child.hidden = true;
            for (const h of keyHits) f.add(h.rule, child);
          }
          const byName = typeof x === 'string' ? secretByName(k, x) : undefined;
          if (byName && !ignore?.has(byName)) f.add(byName, child);
          if (mayHold(x)) stack.push(child);
        }
      }
    }
    return true;
  }

  /** The value with every secret cut out (`[secret redacted: RULE]`), rebuilt where it changed. */
  redact(value: unknown, ignore?: ReadonlySet<string>, depth = 0, known?: ReadonlyMap<string, TextHit[]>): unknown {
    const hitsOf = (s: string): TextHit[] => known?.get(s) ?? this.text(s, ignore);
    if (typeof value === 'string') {
      const hits = hitsOf(value);
      if (hits.length === 0) return value;
      // Past the bound on hits a string may hold more than was found: none of it passes.
      return hits.length >= MAX_HITS
        ? `[secret redacted: ${hits[0]?.rule ?? 'secret'} and ${MAX_HITS - 1}+ more]`
        : redactText(value, hits);
    }
    if (depth > 2_000) return '[secret redacted: too deep to scan]';
    if (Array.isArray(value)) return value.map((x) => this.redact(x, ignore, depth + 1, known));
    if (value === null || typeof value !== 'object') return value;
    const o = value as Record<string, unknown>;
    if (!ignore?.has('gcp_service_account') && isServiceAccount(o)) return '[secret redacted: gcp_service_account]';
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(o)) {
      const keyHits = hitsOf(k);
      const key = keyHits.length > 0 ? redactText(k, keyHits) : k;
      const byName = typeof x === 'string' ? secretByName(k, x) : undefined;
      out[key] = byName && !ignore?.has(byName) ? `[secret redacted: ${byName}]` : this.redact(x, ignore, depth + 1, known);
    }
    return out;
  }

  /**
   * `redact`, its long strings (values and keys of PACED_CHARS or more) read first a rule at a time
   * with `pause` between passes, as scanPaced reads them; the rebuild then looks their hits up
   * instead of reading them again at once (attack round 36: a redacted answer's whole second
   * reading was one block).
   */
  async redactPaced(value: unknown, ignore: ReadonlySet<string> | undefined, pause: () => Promise<void>): Promise<unknown> {
    const known = new Map<string, TextHit[]>();
    const also = this.injected.size > 0 ? this.injected : undefined;
    for (const s of longStrings(value)) if (!known.has(s)) known.set(s, await scanTextPaced(s, ignore, pause, also));
    await pause();
    return this.redact(value, ignore, 0, known);
  }
}

/** The strings (values and keys) of PACED_CHARS or more in a JSON value. Iterative. */
const longStrings = (value: unknown): string[] => {
  const out: string[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (v.length >= PACED_CHARS) out.push(v);
    } else if (Array.isArray(v)) {
      for (const x of v) if (mayHold(x)) stack.push(x);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        if (k.length >= PACED_CHARS) out.push(k);
        if (mayHold(x)) stack.push(x);
      }
    }
  }
  return out;
};
