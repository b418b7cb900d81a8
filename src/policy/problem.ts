/** A policy problem, positioned in its source file: printed as `file:line:col  path  message`. */
export interface PolicyProblem {
  file: string;
  line: number;
  col: number;
  path: string;
  message: string;
  /** The offending value, for layer-one refusals. */
  value?: string;
  /** For a problem in a server: the lanes whose loadout names it. */
  lanes?: string[];
  /** The raw document path. */
  at?: ReadonlyArray<string | number>;
}

export type ProblemPath = ReadonlyArray<string | number>;

/** A problem found by a check that knows the document path but not yet the position. */
export interface PathProblem {
  path: ProblemPath;
  message: string;
  value?: string;
}

export const formatPath = (path: ProblemPath): string =>
  path.length === 0
    ? '(root)'
    : path
        .map((p) => (typeof p === 'number' ? `[${p}]` : p))
        .join('.')
        .replace(/\.\[/g, '[');

export const formatProblem = (p: PolicyProblem): string => `${p.file}:${p.line}:${p.col}  ${p.path}  ${p.message}`;
