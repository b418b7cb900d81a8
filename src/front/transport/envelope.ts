/**
 * The 2026-07-28 per-request `_meta` envelope, checked by hand (pure): the protocol-version and
 * client-capabilities keys are required; client info, log level and progress token are checked
 * when present; other keys pass. Returns the first problem, named by key, or undefined.
 */
import { isObject } from '../../records/atomic.js';
import { MODERN_META } from '../../upstream/conn.js';

export { isObject };
export const VERSION_KEY = MODERN_META.protocolVersion;
export const CAPABILITIES_KEY = MODERN_META.clientCapabilities;
export const CLIENT_INFO_KEY = MODERN_META.clientInfo;
export const LOG_LEVEL_KEY = 'io.modelcontextprotocol/logLevel';

const LOG_LEVELS = new Set(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);

type Check = (v: unknown) => string | undefined;

const optional =
  (check: Check): Check =>
  (v) =>
    v === undefined ? undefined : check(v);
const str: Check = (v) => (typeof v === 'string' ? undefined : 'expected string');
const bool: Check = (v) => (typeof v === 'boolean' ? undefined : 'expected boolean');
const obj: Check = (v) => (isObject(v) ? undefined : 'expected object');
const fields =
  (shape: Record<string, Check>): Check =>
  (v) => {
    if (!isObject(v)) return 'expected object';
    for (const [k, check] of Object.entries(shape)) {
      const p = check(v[k]);
      if (p) return `${k}: ${p}`;
    }
    return undefined;
  };
const recordOf =
  (check: Check): Check =>
  (v) => {
    if (!isObject(v)) return 'expected object';
    for (const [k, x] of Object.entries(v)) {
      const p = check(x);
      if (p) return `${k}: ${p}`;
    }
    return undefined;
  };
const arrayOf =
  (check: Check): Check =>
  (v) => {
    if (!Array.isArray(v)) return 'expected array';
    for (const x of v) {
      const p = check(x);
      if (p) return p;
    }
    return undefined;
  };

const icon = fields({
  src: str,
  mimeType: optional(str),
  sizes: optional(arrayOf(str)),
  theme: optional((v) => (v === 'light' || v === 'dark' ? undefined : 'expected "light" or "dark"')),
});
const implementation = fields({
  name: str,
  title: optional(str),
  icons: optional(arrayOf(icon)),
  version: str,
  websiteUrl: optional(str),
  description: optional(str),
});
const capabilities = fields({
  experimental: optional(recordOf(obj)),
  sampling: optional(fields({ context: optional(obj), tools: optional(obj) })),
  elicitation: optional(fields({ form: optional(fields({ applyDefaults: optional(bool) })), url: optional(obj) })),
  roots: optional(fields({ listChanged: optional(bool) })),
  extensions: optional(recordOf(obj)),
});

const ENVELOPE: Record<string, Check> = {
  [VERSION_KEY]: str,
  [CAPABILITIES_KEY]: capabilities,
  [CLIENT_INFO_KEY]: optional(implementation),
  [LOG_LEVEL_KEY]: optional((v) => (typeof v === 'string' && LOG_LEVELS.has(v) ? undefined : 'expected a logging level')),
};

export const validEnvelope = (meta: Record<string, unknown>): { key: string; problem: string } | undefined => {
  for (const key of [VERSION_KEY, CAPABILITIES_KEY]) if (!(key in meta)) return { key, problem: 'missing' };
  for (const [key, check] of Object.entries(ENVELOPE)) {
    const problem = check(meta[key]);
    if (problem) return { key, problem };
  }
  return undefined;
};
