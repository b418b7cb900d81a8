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
import { type PolicyDoc, policySchema } from './schema.js';
import { aboutRemoved, pruneUntilValid } from './tolerant.js';
import { missingLaunchFiles } from './launch-files.js';

export interface LoadResult {
  policy?: Policy;
  problems: PolicyProblem[];
  /** Problems that do not stop the policy (a launch argument naming a missing script): check fails on them, serve logs them. */
  warnings?: PolicyProblem[];
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

  const raw = doc.toJS() as unknown;
  const at = (list: PathProblem[]): PolicyProblem[] =>
    list.map((p) => {
      const lanes = p.path[0] === 'servers' ? lanesUsing(raw, String(p.path[1])) : undefined;
      return {
        file,
        ...positionOf(doc, lc, p.path),
        path: formatPath(p.path),
        message: p.message,
        at: p.path,
        ...(p.value !== undefined ? { value: p.value } : {}),
        ...(lanes ? { lanes } : {}),
      };
    });

  const parsed = policySchema.safeParse(raw);
  if (!parsed.success) {
    const schema = at(
      parsed.error.issues.flatMap((i) => {
        const path = i.path.map((k) => (typeof k === 'symbol' ? String(k) : k));
        // An unknown key is shown where it is written, not at the object that holds it.
        if (i.code === 'unrecognized_keys') return i.keys.map((k) => ({ path: [...path, k], message: i.message }));
        return [{ path, message: i.message }];
      }),
    );
    // Every problem in one run: the cross-checks of whatever the schema did accept, too.
    const pruned = pruneUntilValid(policySchema, raw);
    const more = pruned.data ? checksOf(pruned.data, file, opts.home, raw, nodePath, opts.checkSecrets) : { problems: [], warnings: [] };
    const rest = at(more.problems.filter((p) => !aboutRemoved(p.message, pruned.removed)));
    return { problems: [...schema, ...rest].sort((a, b) => a.line - b.line || a.col - b.col), warnings: at(more.warnings) };
  }
  const all = checksOf(parsed.data, file, opts.home, raw, nodePath, opts.checkSecrets);
  const positioned = at(all.problems).sort((a, b) => a.line - b.line || a.col - b.col);
  const warnings = at(all.warnings);
  if (positioned.length > 0) return { problems: positioned, warnings };
  const cmd = resolveCommands(parsed.data, path.dirname(file), nodePath);
  return { policy: buildPolicy(parsed.data, file, cmd.resolved, nodePath), problems: [], warnings };
};

/** The cross-checks and the IO half of layer one, on a document the schema accepted. */
const checksOf = (
  data: PolicyDoc,
  file: string,
  home: string | undefined,
  raw: unknown,
  nodePath: string,
  checkSecrets: boolean | undefined,
): { problems: PathProblem[]; warnings: PathProblem[] } => {
  // A policy that names no state directory uses $LANEGATE_HOME (installed), else ./.lanegate.
  const named = (raw as { gateway?: { stateDir?: unknown } } | null)?.gateway?.stateDir !== undefined;
  if (!named && home) data.gateway.stateDir = home;
  const policyDir = path.dirname(file);
  const stateDir = path.resolve(policyDir, expandPlaceholders(data.gateway.stateDir, { policyDir, stateDir: '', node: nodePath }));
  const all: PathProblem[] = [...crossCheck(data), ...resolveCommands(data, policyDir, nodePath).problems];
  if (checkSecrets !== false) all.push(...checkSecretFiles(data, policyDir, stateDir, nodePath));
  return { problems: all, warnings: missingLaunchFiles(data, policyDir, stateDir, nodePath) };
};

/** The lanes whose loadout names a server, read from the raw document (it may not have passed the schema). */
const lanesUsing = (raw: unknown, server: string): string[] => {
  const lanes = (raw as { lanes?: Record<string, { servers?: unknown }> } | null)?.lanes;
  if (typeof lanes !== 'object' || lanes === null) return [];
  return Object.entries(lanes)
    .filter(([, l]) => Array.isArray(l?.servers) && l.servers.includes(server))
    .map(([n]) => n);
};
