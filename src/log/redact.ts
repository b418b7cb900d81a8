/**
 * What logs never show. Structural: paths that may hold credentials are censored wherever they
 * appear. Textual: anything shaped like a bearer token or a JWT inside a message is masked.
 */
export const REDACT_PATHS = [
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

/** The keys of REDACT_PATHS, for loggers that censor by key. */
export const REDACT_KEYS: ReadonlySet<string> = new Set(REDACT_PATHS.map((p) => p.split('.').pop() ?? p));

const JWT_SHAPE = /eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g;
const BEARER = /(Bearer\s+)[^\s"']+/gi;

export const maskTokens = (s: string): string => s.replace(BEARER, '$1[REDACTED]').replace(JWT_SHAPE, '[REDACTED-JWT]');
