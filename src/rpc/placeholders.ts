/**
 * Placeholders for long string values in a JSON text's skeleton (paced-json.ts, large-body.ts):
 * the skeleton is parsed whole, and each placeholder in the result is then replaced by its value.
 */
import { randomBytes } from 'node:crypto';

/** Placeholders carry a per-process nonce: a string a peer sent can never be taken for one. */
const NONCE = `\u0000lanegate-long-${randomBytes(12).toString('hex')}-`;

/** The JSON string token standing for long value `i` in a skeleton. */
export const placeholder = (i: number): string => JSON.stringify(`${NONCE}${i}`);

/** As JSON.parse makes a member: an own, writable, enumerable data property (even one named __proto__). */
const define = (o: object, k: string | number, value: unknown): void => {
  Object.defineProperty(o, k, {
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  });
};

/**
 * A member whose value is decoded when it is first read (then kept as a plain data property);
 * assigning it first replaces it without decoding. JSON.stringify, spreads and Object.entries
 * read it like any other member.
 */
const defineLazy = (o: object, k: string | number, value: () => string): void => {
  Object.defineProperty(o, k, {
    get: () => {
      const v = value();
      define(o, k, v);
      return v;
    },
    set: (v: unknown) => define(o, k, v),
    enumerable: true,
    configurable: true,
  });
};

/**
 * The skeleton with each placeholder replaced by its value (walked without recursion). `lazy`:
 * members get their value when first read (a large body's argument the front only passes on is
 * never decoded), except a placeholder at the root, which is decoded at once.
 */
export const fillPlaceholders = (skeleton: unknown, valueAt: (i: number) => string, lazy = false): unknown => {
  const index = (v: unknown): number | undefined =>
    typeof v === 'string' && v.startsWith(NONCE) ? Number(v.slice(NONCE.length)) : undefined;
  const rootIndex = index(skeleton);
  const root = rootIndex === undefined ? skeleton : valueAt(rootIndex);
  const stack: unknown[] = [root];
  const put = (o: object, k: string | number, i: number): void => {
    if (lazy) defineLazy(o, k, () => valueAt(i));
    else define(o, k, valueAt(i));
  };
  while (stack.length > 0) {
    const o = stack.pop();
    if (o === null || typeof o !== 'object') continue;
    if (Array.isArray(o)) {
      for (let k = 0; k < o.length; k += 1) {
        const i = index(o[k]);
        if (i === undefined) stack.push(o[k]);
        else put(o, k, i);
      }
    } else {
      const r = o as Record<string, unknown>;
      for (const k of Object.keys(r)) {
        const i = index(r[k]);
        if (i === undefined) stack.push(r[k]);
        else put(r, k, i);
      }
    }
  }
  return root;
};
