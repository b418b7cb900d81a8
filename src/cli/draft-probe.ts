import { readFileSync, statSync } from 'node:fs';
import type { Policy } from '../policy/model.js';
import { readGuard } from '../records/guard-file.js';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { draftProbe, type ProbeRoots } from '../shareability/draft-probe.js';
import { writeAtomic } from '../records/atomic.js';
import { validatePolicyText } from '../policy/load.js';
import { formatProblem } from '../policy/problem.js';
import { insertProbe, probeBlock, serverIndent } from './probe-block.js';

/**
 * The directories a server may read, as its launch names them (absolute directory arguments, as
 * server-filesystem takes its allowed directories), and a few files inside the first one.
 */
const rootsOf = (policy: Policy, server: string): ProbeRoots => {
  const t = policy.servers[server]?.transport;
  if (t?.kind !== 'stdio') return { dirs: [], files: [] };
  const isDir = (p: string): boolean => {
    try {
      return path.isAbsolute(p) && statSync(p).isDirectory();
    } catch {
      return false;
    }
  };
  const dirs = t.args.filter(isDir);
  const files: string[] = [];
  for (const d of dirs.slice(0, 1)) {
    try {
      for (const f of readdirSync(d).sort()) {
        const p = path.join(d, f);
        if (statSync(p).isFile()) files.push(p);
        if (files.length >= 3) break;
      }
    } catch {
      // an unreadable root proposes directory paths only
    }
  }
  return { dirs, files };
};

/**
 * `lanegate draft-probe SERVER [--write]`: a probe proposal from the surface the guard recorded,
 * indented to paste as is under servers.SERVER; --write inserts it there, keeping every other
 * byte of the policy (comments included), and only if the result still passes check.
 */
export const runDraftProbe = (policy: Policy, server: string, write = false): number => {
  if (!policy.servers[server]) {
    process.stderr.write(`server "${server}" is not in the policy\n`);
    return 2;
  }
  const rec = readGuard(policy.gateway.stateDir).servers[server];
  if (!rec) {
    process.stderr.write(
      `the surface of "${server}" has not been seen yet: run npx lanegate measure (or use the server once), then retry\n`,
    );
    return 1;
  }
  const steps = draftProbe(rec.surface.tools ?? [], rootsOf(policy, server));
  if (steps.length === 0) {
    process.stderr.write(`"${server}" lists no tool annotated readOnlyHint: true; write a probe by hand from tools without side effects\n`);
    return 1;
  }
  const text = readFileSync(policy.file, 'utf8');
  if (write) {
    const next = insertProbe(text, server, steps);
    if ('error' in next) {
      process.stderr.write(`${next.error}\n`);
      return 1;
    }
    const check = validatePolicyText(next.text, policy.file);
    if (!check.policy) {
      for (const p of check.problems) process.stderr.write(`${formatProblem(p)}\n`);
      process.stderr.write(`the policy with this probe would not pass check; ${policy.file} is unchanged\n`);
      return 1;
    }
    writeAtomic(policy.file, next.text, statSync(policy.file).mode & 0o777);
    process.stdout.write(
      `wrote the probe (${steps.length} step(s)) under servers.${server} in ${policy.file}; review it, then: npx lanegate reload && npx lanegate measure\n`,
    );
    return 0;
  }
  const at = serverIndent(text, server);
  const indent = 'error' in at ? 4 : at.indent;
  const pad = ' '.repeat(indent);
  process.stdout.write(
    `${pad}# Proposed probe for servers.${server} (read-only tools only); pastes as is under servers.${server},\n` +
      `${pad}# or: npx lanegate draft-probe ${server} --write. Review before use: every call below runs\n` +
      `${pad}# against the real server during "lanegate measure". Outputs that differ between two fresh runs\n` +
      `${pad}# (ids, timestamps) are ignored automatically; a step that errors is not covered.\n` +
      `${probeBlock(steps, indent)}\n`,
  );
  return 0;
};
