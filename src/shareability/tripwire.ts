/**
 * The tripwire on a shared child: an answer to one lane that carries text only ANOTHER lane sent
 * is cross-lane contamination seen in service, which a lockstep demonstration cannot rule out
 * (state triggered by volume, time or particular inputs). Pure bookkeeping, bounded memory.
 *
 * What counts as "text a lane sent": distinctive tokens of its request's string arguments. A token
 * is a run of letters, digits, `_` or `-` at least MIN_TOKEN long holding a letter AND a digit and
 * at least MIN_DISTINCT different characters (identifiers, keys, ids, canaries; not words or
 * numbers, which honest servers repeat to everyone). Matching is on whole tokens.
 *
 * What never counts: a token the receiving lane sent too (an echo of its own text); a token the
 * server's answers carried before any lane sent it (text of the server's own: file contents, names
 * in a listing, which every lane may legitimately see and then send back). A token that passes
 * both is only a SUSPECT: the host confirms it by asking a fresh process the same request
 * (tripwire-watch.ts); if the fresh process says it too, it is the server's own (absolved).
 */
export const TRIPWIRE = {
  /** Shortest token that counts as distinctive. */
  minToken: 12,
  /** Fewest distinct characters in a distinctive token. */
  minDistinct: 6,
  /** A longer token is kept and matched by its first this-many characters. */
  maxToken: 64,
  /** Tokens taken from one request (the first ones). */
  perRequest: 64,
  /** Tokens remembered with their senders, per shared child (oldest forgotten first). */
  remembered: 4096,
  /** Tokens of the server's own remembered, per shared child (least recently seen forgotten first). */
  serverOwn: 8192,
} as const;

/**
 * Maximal runs of token characters, at least `minToken` long (the lookbehind skips starts inside a
 * run), found RUN_STEP characters at a time: an unbounded repeat over a 3.4-million-character
 * two-byte run overflowed V8's backtracking stack ("Maximum call stack size exceeded", a lane's
 * valid call failed: attack round of 2026-12-02). MORE extends a run past the step.
 */
const RUN_STEP = 4096;
const TOKEN = new RegExp(`(?<![\\p{L}\\p{N}_-])[\\p{L}\\p{N}_-]{12,${RUN_STEP}}`, 'gu');
const MORE = new RegExp(`[\\p{L}\\p{N}_-]{1,${RUN_STEP}}`, 'uy');
const LETTER = /\p{L}/u;
const DIGIT = /\p{N}/u;

/** Whether a run of token characters is distinctive (pure). ASCII is judged by code; other scripts by Unicode class. */
export const isDistinctive = (t: string): boolean => {
  if (t.length < TRIPWIRE.minToken) return false;
  let letter = false;
  let digit = false;
  let wide = false;
  const seen = new Set<number>();
  for (let i = 0; i < t.length; i += 1) {
    const c = t.charCodeAt(i);
    if (c >= 48 && c <= 57) digit = true;
    else if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) letter = true;
    else if (c > 127) wide = true;
    if (seen.size < TRIPWIRE.minDistinct) seen.add(c);
  }
  if (wide) {
    letter ||= LETTER.test(t);
    digit ||= DIGIT.test(t);
  }
  return letter && digit && seen.size >= TRIPWIRE.minDistinct;
};

/** The distinctive tokens of a text, each cut to TRIPWIRE.maxToken (pure). */
export const tokensOf = (text: string, out: string[] = [], limit = Number.POSITIVE_INFINITY): string[] => {
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(text); m !== null && out.length < limit; m = TOKEN.exec(text)) {
    // The whole run is judged, as before: it ends where MORE stops matching.
    let end = m.index + m[0].length;
    for (MORE.lastIndex = end; MORE.test(text); ) end = MORE.lastIndex;
    TOKEN.lastIndex = end;
    const t = end === m.index + m[0].length ? m[0] : text.slice(m.index, end);
    if (isDistinctive(t)) out.push(t.length > TRIPWIRE.maxToken ? t.slice(0, TRIPWIRE.maxToken) : t);
  }
  return out;
};

/** Every string leaf of a JSON value (keys and the `_meta` and `name` members left out), depth-bounded. */
export const stringsOf = (v: unknown, visit: (s: string) => boolean, depth = 0): boolean => {
  if (typeof v === 'string') return visit(v);
  if (depth > 32 || v === null || typeof v !== 'object') return true;
  if (Array.isArray(v)) {
    for (const x of v) if (!stringsOf(x, visit, depth + 1)) return false;
    return true;
  }
  for (const [k, x] of Object.entries(v)) {
    if (depth === 0 && (k === '_meta' || k === 'name')) continue;
    if (!stringsOf(x, visit, depth + 1)) return false;
  }
  return true;
};

export interface Leak {
  /** The token found (for the log it is shown shortened, never whole). */
  token: string;
  /** The lanes that sent it. */
  from: string[];
}

/** One shared child's tripwire. */
export class Tripwire {
  /** token → the lanes that sent it; insertion order is recency. */
  private readonly senders = new Map<string, Set<string>>();
  /** Tokens the server's answers carried that no lane had sent; insertion order is recency. */
  private readonly own = new Set<string>();

  /** A lane's request is about to reach the shared child: its distinctive tokens are remembered. */
  sent(lane: string, params: unknown): void {
    const tokens: string[] = [];
    stringsOf(params, (s) => {
      tokensOf(s, tokens, TRIPWIRE.perRequest);
      return tokens.length < TRIPWIRE.perRequest;
    });
    for (const t of tokens) {
      if (this.own.has(t)) continue;
      const lanes = this.senders.get(t) ?? new Set<string>();
      lanes.add(lane);
      this.senders.delete(t);
      this.senders.set(t, lanes);
    }
    while (this.senders.size > TRIPWIRE.remembered) this.senders.delete(this.senders.keys().next().value as string);
  }

  /** An answer for `lane`: every token in it that only other lanes sent (suspects, to confirm), in order. */
  suspects(lane: string, answer: unknown): Leak[] {
    const out: Leak[] = [];
    stringsOf(answer, (s) => {
      for (const t of tokensOf(s)) {
        const lanes = this.senders.get(t);
        if (lanes === undefined) {
          this.own.delete(t);
          this.own.add(t);
        } else if (!lanes.has(lane) && !out.some((l) => l.token === t)) out.push({ token: t, from: [...lanes].sort() });
      }
      return out.length < TRIPWIRE.perRequest;
    });
    while (this.own.size > TRIPWIRE.serverOwn) this.own.delete(this.own.values().next().value as string);
    return out;
  }

  /** The first suspect in an answer for `lane`, if any. */
  check(lane: string, answer: unknown): Leak | undefined {
    return this.suspects(lane, answer)[0];
  }

  /** A suspect turned out to be the server's own text (a fresh process said it too): never a leak again. */
  absolve(token: string): void {
    this.senders.delete(token);
    this.own.add(token);
  }

  /** How many tokens it holds (for tests of its bound). */
  get size(): { senders: number; own: number } {
    return { senders: this.senders.size, own: this.own.size };
  }
}
