/**
 * The one error type of lanegate. `code` is a stable, low-cardinality identifier that
 * callers branch on and that may leave the host (metrics, API); `detail` is log-safe
 * context for a human: it never carries a token or a secret value.
 */
export type ErrorCode =
  | 'auth_missing'
  | 'auth_invalid'
  | 'auth_revoked'
  | 'forbidden'
  | 'bad_request'
  | 'upstream_unavailable'
  | 'upstream_refused'
  | 'key_missing'
  | 'records_corrupt'
  | 'internal';

export class LanegateError extends Error {
  readonly code: ErrorCode;
  readonly detail: string;

  constructor(code: ErrorCode, detail: string, options?: { cause?: unknown }) {
    super(`${code}: ${detail}`, options);
    this.name = 'LanegateError';
    this.code = code;
    this.detail = detail;
  }
}

export const isLanegateError = (e: unknown): e is LanegateError => e instanceof LanegateError;
