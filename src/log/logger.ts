import { pino, type Logger } from 'pino';

/**
 * pino JSON logs. Redaction is structural (paths that may hold credentials are censored
 * wherever they appear) and textual (anything shaped like a bearer token or a JWT inside a
 * message is masked), so a careless `log.info({ headers })` cannot leak a lane token.
 */
const REDACT_PATHS = [
  'authorization',
  '*.authorization',
  '*.Authorization',
  'headers.authorization',
  'req.headers.authorization',
  'token',
  '*.token',
  'secret',
  '*.secret',
  'secrets',
  '*.secrets',
  'operatorToken',
];

const JWT_SHAPE = /eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g;
const BEARER = /(Bearer\s+)[^\s"']+/gi;

export const maskTokens = (s: string): string => s.replace(BEARER, '$1[REDACTED]').replace(JWT_SHAPE, '[REDACTED-JWT]');

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
    pino.destination({ fd: 2, sync: false }),
  );

export type { Logger };
