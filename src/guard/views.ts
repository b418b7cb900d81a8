/**
 * Other ways a model can read the same text. A payload split with separators ("r-e-a-d"),
 * spelled in leetspeak, percent-encoded, written as character codes or ROT13 reads plainly to
 * a model but not to a phrase rule. Each view decodes one trick; a view that changes nothing
 * is dropped. Pure and bounded (one pass per view, input already capped by the scanner).
 */

export interface View {
  how: 'separated' | 'leet' | 'percent' | 'charcodes' | 'rot13';
  text: string;
}

/** "r-e-a-d", "r.e.a.d", "r_e_a_d", "r e a d": single letters joined by one separator, four or more. */
const SEPARATED = /(?<![\p{L}\p{N}])(?:[\p{L}\p{N}~/.][\s._*|+-]){3,}[\p{L}\p{N}~/.](?![\p{L}\p{N}])/gu;

const joinSeparated = (t: string): string => t.replace(SEPARATED, (m) => m.replace(/([^\s._*|+-])[\s._*|+-]/gu, '$1'));

const LEET: Record<string, string> = { '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', $: 's', '!': 'i' };
/** Only inside words that mix letters and leet digits: "p4ssw0rd", never "v1.2" or "404". */
const LEET_WORD = /\b(?=[\w@$!]*[a-z])(?=[\w@$!]*[013457@$!])[a-z013457@$!]{4,}\b/gi;
const deLeet = (t: string): string => t.replace(LEET_WORD, (w) => (/^\d+$/.test(w) ? w : w.replace(/[013457@$!]/g, (c) => LEET[c] ?? c)));

const PERCENT = /(?:%[0-9a-f]{2}){4,}/gi;
const dePercent = (t: string): string =>
  t.replace(PERCENT, (m) => {
    try {
      return decodeURIComponent(m);
    } catch {
      return m;
    }
  });

/** Six or more printable character codes in a row: "114,101,97,100" or "\\x72\\x65" or "&#114;". */
const CODES = /(?:(?:\\x[0-9a-f]{2}|\\u00[0-9a-f]{2}|&#\d{2,3};|\b\d{2,3}\b)[\s,;]*){6,}/gi;
const deCodes = (t: string): string =>
  t.replace(CODES, (m) => {
    const parts = m.match(/\\x[0-9a-f]{2}|\\u00[0-9a-f]{2}|&#\d{2,3};|\d{2,3}/gi) ?? [];
    const chars = parts.map((p) =>
      p.startsWith('\\x') || p.startsWith('\\u') ? Number.parseInt(p.slice(-2), 16) : Number(p.replace(/\D/g, '')),
    );
    return chars.every((c) => c >= 32 && c < 127) ? String.fromCharCode(...chars) : m;
  });

const rot13 = (t: string): string =>
  t.replace(/[a-z]/gi, (c) => {
    const base = c <= 'Z' ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });

/** A ROT13 view only when the text says so or is mostly words no English text has. */
const ROT13_HINT = /\b(?:rot-?13|ebg13|caesar)\b/i;

export const viewsOf = (text: string): View[] => {
  const out: View[] = [];
  const add = (how: View['how'], v: string): void => {
    if (v !== text) out.push({ how, text: v });
  };
  add('separated', joinSeparated(text));
  add('leet', deLeet(text));
  add('percent', dePercent(text));
  add('charcodes', deCodes(text));
  if (ROT13_HINT.test(text)) add('rot13', rot13(text));
  return out;
};
