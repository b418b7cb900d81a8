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

/**
 * What happened to an upstream child, said as data where it happened (the host's slot, the child's
 * link) and carried to where it is shown (an absence's code, status, the remedy): never read back
 * out of an error's words.
 */
export type FailureKind = 'crashed' | 'start_failed';

export class LanegateError extends Error {
  readonly code: ErrorCode;
  readonly detail: string;
  /** What happened, when the thrower knows (an upstream that crashed or failed to start). */
  readonly kind?: FailureKind;

  constructor(code: ErrorCode, detail: string, options?: { cause?: unknown; kind?: FailureKind }) {
    super(`${code}: ${detail}`, options && 'cause' in options ? { cause: options.cause } : undefined);
    this.name = 'LanegateError';
    this.code = code;
    this.detail = detail;
    if (options?.kind) this.kind = options.kind;
  }
}

export const isLanegateError = (e: unknown): e is LanegateError => e instanceof LanegateError;
