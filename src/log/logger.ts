import { pino, type DestinationStream, type Logger } from 'pino';
import { createRequire } from 'node:module';
import { logsArePretty } from './lite.js';
import { maskTokens, REDACT_PATHS } from './redact.js';

export { maskTokens } from './redact.js';

/**
 * pino JSON logs. Redaction is structural (paths that may hold credentials are censored
 * wherever they appear) and textual (anything shaped like a bearer token or a JWT inside a
 * message is masked), so a careless `log.info({ headers })` cannot leak a lane token.
 */

/**
 * Where logs go: stderr always (stdout is for what a command prints). JSON when stderr is not a
 * terminal, or when LANEGATE_LOG_FORMAT=json; pretty and colourised on a terminal (synchronously, in
 * this thread: no transport worker).
 */
const destination = (): DestinationStream => {
  if (!logsArePretty()) return pino.destination({ fd: 2, sync: false });
  // Loaded only for a terminal: a host or a front logging JSON never pays for it.
  const { PinoPretty } = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
  return PinoPretty({ destination: 2, colorize: true, translateTime: 'HH:MM:ss.l', ignore: 'hostname', sync: true });
};

export const createLogger = (name: string, level = process.env.LANEGATE_LOG_LEVEL ?? 'info'): Logger =>
  pino(
    {
      name,
      level,
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      formatters: { level: (label) => ({ level: label }) },
      hooks: {
        logMethod(args, method) {
          const masked = args.map((a) => (typeof a === 'string' ? maskTokens(a) : a)) as Parameters<typeof method>;
          method.apply(this, masked);
        },
      },
    },
    destination(),
  );

export type { Logger };
