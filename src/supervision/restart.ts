/** Capped exponential backoff for restarts. Pure. */
export const BACKOFF_BASE_MS = 500;
export const BACKOFF_CAP_MS = 30_000;
/** A child that stayed up this long is healthy again: its crash count resets. */
export const STABLE_AFTER_MS = 30_000;

export const backoffDelay = (crashes: number): number => Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, crashes - 1));
