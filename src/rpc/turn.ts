/**
 * One turn of the event loop: what a long computation awaits between its steps so that other
 * lanes' messages (already read, waiting in the poll phase) are handled in between.
 */
export const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
