/**
 * The one rule for a lane's progress token, in one place. A token is a string or an integer (the
 * JSON-RPC id shape the MCP schema gives it), and a string one is at most MAX_PROGRESS_TOKEN characters.
 * The classifier (transport/classify.ts) applies the shape, as the SDK's own classifier does, so it
 * decides message validity outcome for outcome with it; the front then applies the whole rule before
 * a call stream takes the token (param-checks.ts). Pure.
 */

/**
 * The longest progress token a lane may choose. Every progress notification carries it back, so a
 * long one multiplies: a 1 MiB token on a 500-step call made the gateway write 500 MiB.
 */
export const MAX_PROGRESS_TOKEN = 256;

/** A progress token's shape: a string or an integer. */
export const isProgressToken = (v: unknown): v is string | number =>
  typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));

/** What is wrong with a lane's progress token, if anything (absent is fine). */
export const progressTokenProblem = (t: unknown): string | undefined =>
  t === undefined || (isProgressToken(t) && (typeof t !== 'string' || t.length <= MAX_PROGRESS_TOKEN))
    ? undefined
    : `params._meta.progressToken must be a number or a string of at most ${MAX_PROGRESS_TOKEN} characters`;

/** The token a call stream takes from a checked request's `_meta`, if it has one. */
export const progressTokenOf = (meta: unknown): string | number | undefined => {
  const t = (meta as { progressToken?: unknown } | undefined)?.progressToken;
  return isProgressToken(t) ? t : undefined;
};
