import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { buildPolicy } from './build.js';
import { crossCheck } from './crosscheck.js';
import type { Policy } from './model.js';
import { expandPlaceholders } from './placeholders.js';
import { LineCounter, positionOf } from './positions.js';
import { formatPath, type PathProblem, type PolicyProblem } from './problem.js';
import { checkSecretFiles, resolveCommands } from './resolve.js';
import { policySchema } from './schema.js';

export interface LoadResult {
  policy?: Policy;
  problems: PolicyProblem[];
}

export interface LoadOptions {
  /** Check that secret files are readable (access only; never read). Default true. */
  checkSecrets?: boolean;
  nodePath?: string;
  /** The state directory when the policy names none ($LANEGATE_HOME, read by loadPolicy). */
  home?: string;
}

/**
 * Reads, parses and validates a policy file, reporting EVERY problem it can find with its
 * position, then resolves it. A policy with any problem yields no Policy: nothing runs on it.
 */
export const loadPolicy = (fileArg: string, opts: LoadOptions = {}): LoadResult => {
  const file = path.resolve(fileArg);
  const nodePath = opts.nodePath ?? process.execPath;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const reason = (e as NodeJS.ErrnoException).code ?? 'unreadable';
    return { problems: [{ file, line: 1, col: 1, path: '(file)', message: `cannot read policy file (${reason})` }] };
  }
  const home = opts.home ?? process.env.LANEGATE_HOME;
  return validatePolicyText(text, file, { ...opts, nodePath, ...(home ? { home } : {}) });
};

export const validatePolicyText = (text: string, file: string, opts: LoadOptions = {}): LoadResult => {
  const nodePath = opts.nodePath ?? process.execPath;
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  const problems: PolicyProblem[] = [];
  for (const err of doc.errors) {
    const pos = lc.linePos(err.pos[0]);
    problems.push({ file, line: pos.line, col: pos.col, path: '(yaml)', message: err.message.split('\n')[0] ?? err.message });
  }
  if (problems.length > 0) return { problems };

  const at = (list: PathProblem[]): PolicyProblem[] =>
    list.map((p) => ({
      file,
      ...positionOf(doc, lc, p.path),
      path: formatPath(p.path),
      message: p.message,
      at: p.path,
      ...(p.value !== undefined ? { value: p.value } : {}),
    }));

  const parsed = policySchema.safeParse(doc.toJS());
  if (!parsed.success) {
    return {
      problems: at(
        parsed.error.issues.map((i) => ({ path: i.path.map((k) => (typeof k === 'symbol' ? String(k) : k)), message: i.message })),
      ),
    };
  }
  // A policy that names no state directory uses $LANEGATE_HOME (installed), else ./.lanegate.
  const named = (doc.toJS() as { gateway?: { stateDir?: unknown } } | null)?.gateway?.stateDir !== undefined;
  if (!named && opts.home) parsed.data.gateway.stateDir = opts.home;
  const policyDir = path.dirname(file);
  const stateDir = path.resolve(policyDir, expandPlaceholders(parsed.data.gateway.stateDir, { policyDir, stateDir: '', node: nodePath }));
  const cmd = resolveCommands(parsed.data, policyDir, nodePath);
  const all: PathProblem[] = [...crossCheck(parsed.data), ...cmd.problems];
  if (opts.checkSecrets !== false) all.push(...checkSecretFiles(parsed.data, policyDir, stateDir, nodePath));
  const positioned = at(all).sort((a, b) => a.line - b.line || a.col - b.col);
  if (positioned.length > 0) return { problems: positioned };
  return { policy: buildPolicy(parsed.data, file, cmd.resolved, nodePath), problems: [] };
};
