import type { FailureKind } from '../errors.js';

/** Capped exponential backoff for restarts. Pure. */
export const BACKOFF_BASE_MS = 500;
export const BACKOFF_CAP_MS = 30_000;
/** A child that stayed up this long is healthy again: its crash count resets. */
export const STABLE_AFTER_MS = 30_000;

export const backoffDelay = (crashes: number): number => Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, crashes - 1));

/** What a supervisor keeps about a process it restarts. */
export interface RestartRecord {
  crashes: number;
  retryAt: number;
  startedAt: number;
  lastError?: string;
  /** What the last failure was, when the supervisor knows (a child that crashed or failed to start). */
  lastKind?: FailureKind;
}

/**
 * A failure of a supervised process: counted (from zero again if it had stayed up past
 * STABLE_AFTER_MS), described, and the earliest retry set by the backoff. The one bookkeeping of
 * children (host slots) and hosts (the front).
 */
export const noteFailure = (r: RestartRecord, what: string, now = Date.now(), kind?: FailureKind): void => {
  if (r.startedAt > 0 && now - r.startedAt > STABLE_AFTER_MS) r.crashes = 0;
  r.crashes += 1;
  r.lastError = what;
  r.lastKind = kind;
  r.retryAt = now + backoffDelay(r.crashes);
};
