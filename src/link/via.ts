/**
 * Where a forwarded request ran, as the host tells the front on the answer itself: the placement
 * of the child that served it (shared or the lane's own) and its pid. The host appends it as the
 * LAST key of the result object it writes; the front cuts that tail off the result's text before
 * anything reaches the lane, without parsing the result. Pure, used by both ends.
 */
import { RawResult } from '../rpc/raw.js';
import { dropLast, lastChars } from '../rpc/parts-text.js';

export const VIA = 'lanegate/via';

export interface Via {
  placement: 'shared' | 'dedicated';
  /** The child's pid (absent for an HTTP upstream). */
  pid?: number;
}

const TAIL = `"${VIA}":`;

/**
 * The host's side: the result with `via` as its last key. A key of that name the upstream wrote
 * is dropped first, so the last one is always the host's (JSON.stringify keeps insertion order).
 * Only that rare case copies the result; otherwise the key is added to the host's own parsed copy.
 */
export const withVia = (result: Record<string, unknown>, via: Via): Record<string, unknown> => {
  let out = result;
  if (Object.hasOwn(result, VIA)) {
    out = { ...result };
    delete out[VIA];
  }
  out[VIA] = via.pid === undefined ? { placement: via.placement } : { placement: via.placement, pid: via.pid };
  return out;
};

const readVia = (json: string): Via | undefined => {
  try {
    const v = JSON.parse(json) as { placement?: unknown; pid?: unknown };
    if (v.placement !== 'shared' && v.placement !== 'dedicated') return undefined;
    return typeof v.pid === 'number' ? { placement: v.placement, pid: v.pid } : { placement: v.placement };
  } catch {
    return undefined;
  }
};

/**
 * The front's side: the result's text without the host's tail, and what the tail said. A result
 * without one (an older host, a path that adds none) comes back as it was. Costs a backward search
 * over the tail and a slice; the result itself is not parsed.
 */
export const splitVia = (text: string): { text: string; via?: Via } => {
  if (text.charCodeAt(text.length - 1) !== 125) return { text };
  const at = text.lastIndexOf(TAIL);
  // The tail is short and holds no quote-colon key of this name: anything past 120 chars is not the host's.
  if (at < 1 || text.length - at > 120) return { text };
  const via = readVia(text.slice(at + TAIL.length, -1));
  if (!via) return { text };
  const before = text.charCodeAt(at - 1);
  if (before === 44) return { text: `${text.slice(0, at - 1)}}`, via }; // ,"lanegate/via":{…}}
  if (before === 123) return { text: '{}', via }; // {"lanegate/via":{…}}
  return { text };
};

/** The longest tail splitVia reads: the host's `,"lanegate/via":{…}}` and the character before it. */
const TAIL_READ = 122;

/**
 * splitVia for a RawResult: the same object when there was no tail. Only the text's last
 * characters are read and cut, whatever its size: a large result's parts are never joined
 * (parts-text.ts). A tail that splitVia reads as the whole result (`{"lanegate/via":…}`) can only
 * be the whole text: its `{` opens the object the text's last `}` closes.
 */
export const splitRawVia = (raw: RawResult): { raw: RawResult; via?: Via } => {
  const end = lastChars(raw.parts, TAIL_READ);
  const s = splitVia(end);
  if (!s.via) return { raw };
  if (s.text === '{}') return { raw: new RawResult('{}'), via: s.via };
  // What splitVia cut from the end (its text ends in the `}` it kept) comes off the parts, and the `}` goes back on.
  return { raw: new RawResult([...dropLast(raw.parts, end.length - s.text.length + 1), '}']), via: s.via };
};
