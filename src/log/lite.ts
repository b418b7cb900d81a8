import { writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { maskTokens, REDACT_KEYS } from './redact.js';

/** What a host logs with: pino's call shape (object first, message second), pino's JSON lines. */
export interface Log {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Pretty logs on a terminal, JSON lines otherwise (LANEGATE_LOG_FORMAT=json|pretty decides). */
export const logsArePretty = (): boolean =>
  process.env.LANEGATE_LOG_FORMAT !== 'json' && (process.env.LANEGATE_LOG_FORMAT === 'pretty' || process.stderr.isTTY === true);

const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Number.POSITIVE_INFINITY } as const;
type Level = keyof typeof LEVELS;

/** Censors credential-shaped keys at the top level and one level down, and masks tokens in text. */
const redact = (v: unknown, depth = 0): unknown => {
  if (typeof v === 'string') return maskTokens(v);
  if (v === null || typeof v !== 'object' || depth > 1) return v;
  if (Array.isArray(v)) return v.map((x) => redact(x, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = REDACT_KEYS.has(k) ? '[REDACTED]' : redact(x, depth + 1);
  return out;
};

/**
 * A logger with pino's output and none of its machinery, for processes that log a few lines an
 * hour (hosts): one synchronous write per line to stderr. The front keeps pino.
 */
export const liteLogger = (name: string, level = process.env.LANEGATE_LOG_LEVEL ?? 'info'): Log => {
  const floor = LEVELS[(level in LEVELS ? level : 'info') as Level];
  const base = `"pid":${process.pid},"hostname":${JSON.stringify(hostname())},"name":${JSON.stringify(name)}`;
  const at =
    (label: Level) =>
    (obj: object, msg?: string): void => {
      if (LEVELS[label] < floor) return;
      const fields = JSON.stringify(redact(obj)).slice(1, -1);
      const line = `{"level":"${label}","time":${Date.now()},${base}${fields ? `,${fields}` : ''}${msg === undefined ? '' : `,"msg":${JSON.stringify(maskTokens(msg))}`}}\n`;
      try {
        writeSync(2, line);
      } catch {
        // stderr gone: nothing to tell.
      }
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
};
