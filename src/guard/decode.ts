/**
 * Encoded text a model can read but a phrase rule cannot: base64, hex, percent-encoding and HTML
 * entities. Each decoder returns the decoded text only when it reads as text (printable, mostly
 * letters), so identifiers and hashes are not "decoded" into noise. Pure and bounded: one pass per
 * encoding over a string the scanner has already capped.
 */
export interface Decoded {
  how: 'base64' | 'hex' | 'percent' | 'entities';
  /** The encoded run as written (or the whole string for entities). */
  raw: string;
  text: string;
}

const NOT_PRINTABLE = /[^\x20-\x7e\n\t]/g;

/** Whether decoded bytes read as words: printable, mostly letters and spaces, at least one space. */
export const readsAsText = (s: string): boolean => {
  if (s.length < 8) return false;
  const printable = s.replace(NOT_PRINTABLE, '').length / s.length;
  const letters = (s.match(/[a-z ]/gi) ?? []).length / s.length;
  return printable > 0.97 && letters > 0.7 && /[a-z]{2,} [a-z]{2,}/i.test(s);
};

const B64_RUN = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/]{16,}={0,2}(?![A-Za-z0-9+/=_-])/g;
const HEX_RUN = /(?<![0-9a-f])(?:(?:\\x|0x)?[0-9a-f]{2}[\s:]?){12,}(?![0-9a-f])/gi;
const PCT_RUN = /(?:%[0-9a-f]{2}|[\w.~-]){0,40}(?:%[0-9a-f]{2}[\w.~-]*){2,}/gi;
const ENTITY = /&(?:#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,8});/gi;
const NAMED: Record<string, string> = {
  lt: '<',
  gt: '>',
  amp: '&',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  sol: '/',
  colon: ':',
  period: '.',
};

const fromBase64 = (run: string): string | undefined => {
  if (!/[a-z]/.test(run) || !/[A-Z]/.test(run) || run.length % 4 === 1) return undefined;
  const s = Buffer.from(run, 'base64').toString('utf8');
  return readsAsText(s) ? s : undefined;
};

const fromHex = (run: string): string | undefined => {
  const hex = run.replace(/\\x|0x|[\s:]/gi, '');
  if (hex.length % 2 !== 0) return undefined;
  const s = Buffer.from(hex, 'hex').toString('utf8');
  return readsAsText(s) ? s : undefined;
};

const fromPercent = (run: string): string | undefined => {
  try {
    const s = decodeURIComponent(run);
    return s !== run && /[a-z]{2,}/i.test(s) ? s : undefined;
  } catch {
    return undefined;
  }
};

const fromEntities = (text: string): string =>
  text.replace(ENTITY, (m) => {
    const body = m.slice(1, -1).toLowerCase();
    if (body.startsWith('#x')) return String.fromCodePoint(Math.min(0x10ffff, Number.parseInt(body.slice(2), 16)));
    if (body.startsWith('#')) return String.fromCodePoint(Math.min(0x10ffff, Number(body.slice(1))));
    return NAMED[body] ?? m;
  });

/** Every encoded run in the text that decodes to readable text. */
export const decodedRuns = (text: string): Decoded[] => {
  const out: Decoded[] = [];
  if (text.length >= 16) {
    for (const m of text.matchAll(B64_RUN)) {
      const t = fromBase64(m[0]);
      if (t) out.push({ how: 'base64', raw: m[0], text: t });
    }
    for (const m of text.matchAll(HEX_RUN)) {
      const t = fromHex(m[0]);
      if (t) out.push({ how: 'hex', raw: m[0], text: t });
    }
  }
  if (text.includes('%'))
    for (const m of text.matchAll(PCT_RUN)) {
      const t = fromPercent(m[0]);
      if (t) out.push({ how: 'percent', raw: m[0], text: t });
    }
  if (text.includes('&')) {
    const t = fromEntities(text);
    if (t !== text) out.push({ how: 'entities', raw: text, text: t });
  }
  return out;
};
