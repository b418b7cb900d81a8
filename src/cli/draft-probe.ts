import { stringify } from 'yaml';
import type { Policy } from '../policy/model.js';
import { readGuard } from '../records/guard-file.js';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { draftProbe, type ProbeRoots } from '../shareability/draft-probe.js';

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

/** `lanegate draft-probe SERVER`: a probe proposal from the surface the guard recorded. */
export const runDraftProbe = (policy: Policy, server: string): number => {
  if (!policy.servers[server]) {
    process.stderr.write(`server "${server}" is not in the policy\n`);
    return 2;
  }
  const rec = readGuard(policy.gateway.stateDir).servers[server];
  if (!rec) {
    process.stderr.write(`the surface of "${server}" has not been seen yet: run lanegate measure (or use the server once), then retry\n`);
    return 1;
  }
  const steps = draftProbe(rec.surface.tools ?? [], rootsOf(policy, server));
  if (steps.length === 0) {
    process.stderr.write(`"${server}" lists no tool annotated readOnlyHint: true; write a probe by hand from tools without side effects\n`);
    return 1;
  }
  process.stdout.write(
    `# Proposed probe for servers.${server} (read-only tools only). Review before use: every call below will run\n# against the real server during "lanegate measure". Outputs that differ between two fresh runs\n# (ids, timestamps) are ignored automatically; a step that errors is not covered.\n${stringify({ probe: steps })}`,
  );
  return 0;
};
