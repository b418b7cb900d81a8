/**
 * JSON-RPC ids that are integers beyond 2^53. JSON.parse rounds them, so an answer would carry
 * another id than the request did and the client could not match it. The exact digits are read
 * from the body's text, the request carries a stand-in string while it is served, and the answer
 * text gets the digits back where the stand-in was written. Pure.
 */
const MARK = '\u0000lanegate-id:';
/** The stand-in as JSON.stringify writes it (the NUL escaped), with its digits. */
const WRITTEN = /"\\u0000lanegate-id:(-?\d+)"/g;

/** The text of the top-level `"id"` member of a JSON object's text, if it is an integer literal. */
const topLevelIntegerId = (text: string): string | undefined => {
  let depth = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // A string: a key at depth 1 may be "id".
      let j = i + 1;
      while (j < n && text.charCodeAt(j) !== 34) j += text.charCodeAt(j) === 92 ? 2 : 1;
      const key = text.slice(i + 1, j);
      i = j + 1;
      if (depth === 1 && key === 'id') {
        let k = i;
        while (k < n && /\s/.test(text[k] ?? '')) k += 1;
        if (text[k] !== ':') continue;
        k += 1;
        while (k < n && /\s/.test(text[k] ?? '')) k += 1;
        const m = /^-?\d+(?=\s*[,}])/.exec(text.slice(k, k + 64));
        return m?.[0];
      }
      continue;
    }
    if (c === 123 || c === 91) depth += 1;
    else if (c === 125 || c === 93) depth -= 1;
    i += 1;
  }
  return undefined;
};

/** The stand-in id for a message whose id JSON.parse rounded, or undefined when its id is exact. */
export const exactIdStandIn = (body: unknown, text: string): string | undefined => {
  const id = (body as { id?: unknown } | null)?.id;
  if (typeof id !== 'number' || Number.isSafeInteger(id) || !Number.isInteger(id)) return undefined;
  const digits = topLevelIntegerId(text);
  return digits === undefined ? undefined : `${MARK}${digits}`;
};

/**
 * The stand-in for a notifications/cancelled's `requestId` that JSON.parse rounded: the call it
 * names is served under a stand-in (exactIdStandIn), so the cancel must name that, not the rounded
 * number. The digits are the body's `"requestId"` integer literal (a lane can only cancel its own calls).
 */
export const exactRequestIdStandIn = (body: unknown, text: string): string | undefined => {
  const b = body as { method?: unknown; params?: { requestId?: unknown } } | null;
  const id = b?.params?.requestId;
  if (b?.method !== 'notifications/cancelled' || typeof id !== 'number' || Number.isSafeInteger(id) || !Number.isInteger(id))
    return undefined;
  const digits = integerMember(text, 'params', 'requestId');
  return digits === undefined ? undefined : `${MARK}${digits}`;
};

/**
 * The integer literal of `outer.inner` in a JSON object's text (outer a top-level member, inner a
 * member of it), the LAST such member as JSON.parse keeps it; undefined when it is not an integer
 * literal. Reads keys by depth, so a `requestId` nested anywhere else (in _meta, in a string) is not it.
 */
const integerMember = (text: string, outer: string, inner: string): string | undefined => {
  let depth = 0;
  let key: string | undefined;
  let inOuter = false;
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
      if (depth === 2 && inOuter && s === inner) {
        const m = /^\s*(-?\d+)(?=\s*[,}])/.exec(text.slice(k + 1, k + 80));
        found = m?.[1];
      }
      continue;
    }
    if (c === 123 || c === 91) {
      depth += 1;
      if (depth === 2) inOuter = c === 123 && key === outer;
      key = undefined;
    } else if (c === 125 || c === 93) {
      depth -= 1;
      if (depth < 2) inOuter = false;
    }
  }
  return found;
};

/** Answer text with every stand-in written back as the digits it stands for. */
export const restoreExactIds = (text: string): string => text.replace(WRITTEN, '$1');
