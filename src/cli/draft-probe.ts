import { stringify } from 'yaml';
import type { Policy } from '../policy/model.js';
import { readGuard } from '../records/guard-file.js';
import { draftProbe } from '../shareability/draft-probe.js';

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
  const steps = draftProbe(rec.surface.tools ?? []);
  if (steps.length === 0) {
    process.stderr.write(`"${server}" lists no tool annotated readOnlyHint: true; write a probe by hand from tools without side effects\n`);
    return 1;
  }
  process.stdout.write(
    `# Proposed probe for servers.${server} (read-only tools only). Review before use: every call below will run\n# against the real server during "lanegate measure". Add volatile: [paths] for timestamps and ids.\n${stringify({ probe: steps })}`,
  );
  return 0;
};
