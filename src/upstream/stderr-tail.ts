import type { Readable } from 'node:stream';

/** How many of a child's last stderr lines are kept, and how long each may be. */
const KEEP = 20;
const WIDTH = 300;

/** A bounded tail of a child's stderr lines (a start that fails says why here). */
export class StderrTail {
  private readonly lines: string[] = [];

  push(line: string): void {
    if (line.trim() === '') return;
    this.lines.push(line.slice(0, WIDTH));
    if (this.lines.length > KEEP) this.lines.shift();
  }

  get all(): readonly string[] {
    return this.lines;
  }
}

const TELLING = /\b(?:error|cannot|can't|not found|no such|denied|refused|failed|fatal|exception|traceback|missing)\b/i;
/** Node's own stack frames and footer: never the reason. */
const NOISE = /^\s*(?:at |\^|throw |Node\.js v|\{|\}|code: |requireStack)|^node:internal/;

/**
 * The line of a failed child's stderr that says why (Node's "Error: Cannot find module …", a
 * Python traceback's last line, "permission denied"), else its last line. Pure.
 */
export const stderrReason = (lines: readonly string[]): string | undefined => {
  const useful = lines.filter((l) => !NOISE.test(l));
  const telling = useful.filter((l) => TELLING.test(l));
  return (telling[0] ?? useful.at(-1) ?? lines.at(-1))?.trim();
};

/** A child's stderr as it is read: each line to `onStderr`, and a tail kept until the start is done. */
export interface StderrWatch {
  /** Settles when the stream has closed (its last, unterminated line kept). */
  readonly ended: Promise<void>;
  /** The tail kept so far (empty once forgotten). */
  lastWords(): readonly string[];
  /** The start is done: no more lines kept. */
  forget(): void;
}

/** Longest unterminated line held while waiting for its newline. */
const PARTIAL_MAX = 8192;

export const watchStderr = (stream: Readable | null, ev: { onStderr?: (line: string) => void }): StderrWatch => {
  let tail: StderrTail | undefined = new StderrTail();
  const watch = (ended: Promise<void>): StderrWatch => ({
    ended,
    lastWords: () => tail?.all ?? [],
    forget: () => {
      tail = undefined;
    },
  });
  if (!stream) return watch(Promise.resolve());
  stream.setEncoding('utf8');
  let errBuf = '';
  const ended = new Promise<void>((resolve) => {
    stream.once('close', () => {
      if (errBuf) tail?.push(errBuf);
      resolve();
    });
  });
  stream.on('data', (c: string) => {
    errBuf += c;
    let i = errBuf.indexOf('\n');
    while (i >= 0) {
      ev.onStderr?.(errBuf.slice(0, i));
      tail?.push(errBuf.slice(0, i));
      errBuf = errBuf.slice(i + 1);
      i = errBuf.indexOf('\n');
    }
    if (errBuf.length > PARTIAL_MAX) errBuf = errBuf.slice(-PARTIAL_MAX);
  });
  return watch(ended);
};
