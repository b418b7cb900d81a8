/**
 * JSON-RPC ids that are integers beyond 2^53. JSON.parse rounds them, so an answer would carry
 * another id than the request did and the client could not match it. The exact digits are read
 * from the body's text, the request carries a stand-in string while it is served, and the answer
 * text gets the digits back where the stand-in was written. Pure.
 */
import { randomBytes } from 'node:crypto';

/**
 * The stand-in's prefix carries a per-process nonce: a lane that sends the same string as an id of
 * its own cannot be taken for a big-integer call (attack round 10: with a fixed prefix it was
 * refused as in use, and its cancel reached the big-integer call).
 */
const NONCE = randomBytes(9).toString('hex');
const MARK = `\u0000lanegate-id-${NONCE}:`;
/** What every stand-in holds as written (a search for it never misses one). */
export const STAND_IN_MARK = `lanegate-id-${NONCE}:`;
/** The stand-in as JSON.stringify writes it (the NUL escaped), with its digits. */
const WRITTEN = new RegExp(`"\\\\u0000lanegate-id-${NONCE}:(-?\\d+)"`, 'g');

/** The stand-in for `v`, the value at `path` in the text, when JSON.parse rounded it (an integer beyond 2^53). */
const standInAt = (v: unknown, text: string, path: readonly string[]): string | undefined => {
  if (typeof v !== 'number' || Number.isSafeInteger(v) || !Number.isInteger(v)) return undefined;
  const digits = integerMember(text, path);
  return digits === undefined ? undefined : `${MARK}${digits}`;
};

/** The stand-in id for a message whose id JSON.parse rounded, or undefined when its id is exact. */
export const exactIdStandIn = (body: unknown, text: string): string | undefined =>
  standInAt((body as { id?: unknown } | null)?.id, text, ['id']);

/**
 * The stand-in for a notifications/cancelled's `requestId` that JSON.parse rounded: the call it
 * names is served under a stand-in (exactIdStandIn), so the cancel must name that, not the rounded
 * number. The digits are the body's `"requestId"` integer literal (a lane can only cancel its own calls).
 */
export const exactRequestIdStandIn = (body: unknown, text: string): string | undefined => {
  const b = body as { method?: unknown; params?: { requestId?: unknown } } | null;
  return b?.method === 'notifications/cancelled' ? standInAt(b.params?.requestId, text, ['params', 'requestId']) : undefined;
};

/**
 * The stand-in for a request's `params._meta.progressToken` that JSON.parse rounded: the lane's
 * call stream keeps it as the token the lane chose, every progress notification carries it back,
 * and the written text gets the digits (restoreExactIds), so the lane can match its progress.
 */
export const exactProgressTokenStandIn = (body: unknown, text: string): string | undefined =>
  standInAt((body as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params?._meta?.progressToken, text, [
    'params',
    '_meta',
    'progressToken',
  ]);

/**
 * The longest integer literal read exactly (digits, a sign, spaces around): past 308 digits
 * JSON.parse gives Infinity and the message is refused; 80 (as before) left 65 to 308 digits
 * rounded, and two such ids collided (attack round 11).
 */
const INTEGER_CHARS = 400;

/**
 * The digits of the integer a JSON number literal writes (`9007199254740993.0`, `9.007199254740993e15`
 * and `9007199254740993` are one number), or undefined when it is not an integer or would run past
 * INTEGER_CHARS digits. Exact: decimal digits are moved, never computed in floating point.
 */
export const integerDigits = (literal: string | undefined): string | undefined => {
  const m = literal === undefined ? null : /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal);
  if (!m) return undefined;
  const [, sign = '', whole = '', fraction = '', exp = '0'] = m;
  const shift = Number(exp) - fraction.length;
  let digits = `${whole}${fraction}`;
  if (shift >= 0) {
    if (digits.length + shift > INTEGER_CHARS) return undefined;
    digits += '0'.repeat(shift);
  } else {
    // Places after the point must all be zeros for an integer.
    const cut = digits.length + shift;
    if (/[1-9]/.test(digits.slice(Math.max(0, cut)))) return undefined;
    digits = cut <= 0 ? '0' : digits.slice(0, cut);
  }
  digits = digits.replace(/^0+(?=\d)/, '');
  return digits === '0' ? '0' : `${sign}${digits}`;
};

/**
 * The integer literal at `path` in a JSON object's text (`['id']`: the top-level id;
 * `['params', 'requestId']`: a member of the top-level params object), the LAST such member as
 * JSON.parse keeps it; undefined when it is not an integer literal. Keys are read by depth, so the
 * same name nested anywhere else (in _meta, inside a string) is not it. One linear pass.
 */
const integerMember = (text: string, path: readonly string[]): string | undefined => {
  let depth = 0;
  let key: string | undefined;
  // How many of the path's containers the scan is inside (an object at depth d opened under path[d-1]).
  let inside = 0;
  let found: string | undefined;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      let j = i + 1;
      while (j < text.length && text.charCodeAt(j) !== 34) j += text.charCodeAt(j) === 92 ? 2 : 1;
      const s = text.slice(i + 1, j);
      i = j;
      let k = j + 1;
      while (k < text.length && /\s/.test(text[k] ?? '')) k += 1;
      if (text[k] !== ':') continue;
      key = s;
      if (depth === path.length && inside === path.length - 1 && s === path[path.length - 1])
        found = integerDigits(/^\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)(?=\s*[,}])/.exec(text.slice(k + 1, k + 1 + INTEGER_CHARS))?.[1]);
      continue;
    }
    if (c === 123 || c === 91) {
      depth += 1;
      // The top object is depth 1; a container at depth d + 1 is on the path if opened under path[d - 1].
      if (depth >= 2 && inside === depth - 2 && c === 123 && key === path[depth - 2]) inside = depth - 1;
      key = undefined;
    } else if (c === 125 || c === 93) {
      depth -= 1;
      if (inside > Math.max(0, depth - 1)) inside = Math.max(0, depth - 1);
    }
  }
  return found;
};

/** Answer text with every stand-in written back as the digits it stands for. */
export const restoreExactIds = (text: string): string => text.replace(WRITTEN, '$1');
