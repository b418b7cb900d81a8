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
