/**
 * The one error type of lanegate. `code` is a stable, low-cardinality identifier that
 * callers branch on and that may leave the host (metrics, API); `detail` is log-safe
 * context for a human: it never carries a token or a secret value.
 */
export type ErrorCode =
  | 'policy_invalid'
  | 'policy_unreadable'
  | 'auth_missing'
  | 'auth_invalid'
  | 'auth_revoked'
  | 'forbidden'
  | 'session_unknown'
  | 'body_too_large'
  | 'bad_request'
  | 'origin_refused'
  | 'upstream_unavailable'
  | 'upstream_refused'
  | 'upstream_error'
  | 'upstream_timeout'
  | 'host_unavailable'
  | 'name_collision'
  | 'key_missing'
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
