import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { expandForLanes, expandPlaceholders } from './placeholders.js';
import type { PathProblem } from './problem.js';
import type { PolicyDoc } from './schema.js';

/**
 * The IO half of layer one: every allowlisted command must resolve to an existing executable
 * at an absolute path; the resolved (real) path is what a host will exec and re-verify.
 */
export const resolveCommands = (
  doc: PolicyDoc,
  policyDir: string,
  nodePath: string,
): { resolved: Record<string, string>; problems: PathProblem[] } => {
  const resolved: Record<string, string> = {};
  const problems: PathProblem[] = [];
  for (const [name, cmd] of Object.entries(doc.commands)) {
    const p = expandPlaceholders(cmd.path, { policyDir, stateDir: '', node: nodePath });
    if (!path.isAbsolute(p)) {
      problems.push({
        path: ['commands', name, 'path'],
        value: cmd.path,
        message: `layer one (structural): "${cmd.path}" is not an absolute path`,
      });
      continue;
    }
    try {
      const real = realpathSync(p);
      if (!statSync(real).isFile()) throw new Error('not a file');
      accessSync(real, constants.X_OK);
      resolved[name] = real;
    } catch {
      problems.push({ path: ['commands', name, 'path'], value: p, message: `layer one (structural): "${p}" is not an executable file` });
    }
  }
  return { resolved, problems };
};

/**
 * Secret files must be readable by the process that will host them. This checks access only:
 * the contents are never read here, so `check` and the front never hold a secret value.
 */
export const checkSecretFiles = (doc: PolicyDoc, policyDir: string, stateDir: string, nodePath: string): PathProblem[] => {
  const problems: PathProblem[] = [];
  for (const [domainName, d] of Object.entries(doc.trustDomains)) {
    const lanes = Object.entries(doc.lanes)
      .filter(([, l]) => l.servers.some((s) => doc.servers[s]?.domain === domainName))
      .map(([n]) => n);
    for (const [secret, ref] of Object.entries(d.secrets ?? {})) {
      const base = path.resolve(policyDir, expandPlaceholders(ref.file, { policyDir, stateDir, node: nodePath }));
      const files = expandForLanes(base, lanes);
      for (const f of files) {
        try {
          accessSync(f, constants.R_OK);
        } catch {
          problems.push({
            path: ['trustDomains', domainName, 'secrets', secret, 'file'],
            message: `secret file "${f}" is missing or unreadable`,
          });
        }
      }
    }
  }
  return problems;
};
