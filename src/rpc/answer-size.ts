/**
 * How long the line that carried a result was, as read from its peer: a host weighs a lane's
 * answers by it (host/answer-bytes.ts) without serialising them again. Only long lines are noted
 * (peer.ts, a line of LARGE_TURN_CHARS or more); a result not noted is a short one.
 */
const sizes = new WeakMap<object, number>();

/** Notes the characters of the line `result` was read from (an object result only). */
export const noteAnswerSize = (result: unknown, chars: number): void => {
  if (result !== null && typeof result === 'object') sizes.set(result, chars);
};

/** The characters of the line `result` was read from, or 0 for a short (or unknown) one. */
export const answerSize = (result: unknown): number => (result !== null && typeof result === 'object' ? (sizes.get(result) ?? 0) : 0);
