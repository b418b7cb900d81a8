/**
 * Strings that upstream servers choose (names, versions, error messages) are escaped before
 * they reach a log line or a terminal: control characters (newline, ESC, bidi overrides...)
 * become visible escapes, so a server can neither forge a log line nor recolour output.
 * Escaping keeps the evidence that the server sent those characters; the length is bounded.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this regex's purpose
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/g;

export const escapeUntrusted = (value: unknown, max = 512): string => {
  const s = typeof value === 'string' ? value : String(value);
  // Only what can be shown is escaped: a 4 MB name costs a slice, not a pass over all of it.
  const head = s.length > max ? s.slice(0, max) : s;
  const escaped = head.replace(CONTROL, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const cut = escaped.length > max ? escaped.slice(0, max) : escaped;
  return s.length > max || escaped.length > max ? `${cut}…(${s.length} chars)` : escaped;
};

/** How many characters of a lane's or peer's method or name an error message repeats. */
export const SHOWN_NAME_CHARS = 128;

/**
 * A method or name a lane (or a peer) sent, as an error message repeats it: escaped and cut at
 * SHOWN_NAME_CHARS, so an unknown 4 MB method name is not sent back whole (attack round 9).
 */
export const shownName = (name: unknown): string => escapeUntrusted(name, SHOWN_NAME_CHARS);

/**
 * A word for a POSIX shell, for remedies an operator (or an agent) may paste: quoted unless it is
 * plainly safe, so an upstream-chosen name is only ever one argument and never runs. Control
 * characters are shown escaped first (as in logs), so a name cannot forge a line of the text the
 * command is printed in; such a name is then not the exact one, and `lanegate inspect` shows it.
 */
export const shellQuote = (word: string): string => {
  const visible = word.replace(CONTROL, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(visible) ? visible : `'${visible.replace(/'/g, `'\\''`)}'`;
};
