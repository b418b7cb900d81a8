import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensureSigningKey } from '../auth/keys.js';
import { parseDocument } from 'yaml';
import { readFileSync } from 'node:fs';
import { policySchema } from '../policy/schema.js';
import { expandPlaceholders } from '../policy/placeholders.js';

/**
 * `lanegate init`: creates the state dir (0700) and the signing key, and with --demo-secrets
 * writes a random value into each MISSING secret file that lies inside the state dir (never
 * outside it, never over an existing file). Runs in its own process, so the front never holds
 * a private key or a secret value.
 */
export const runInit = async (policyFile: string, demoSecrets: boolean): Promise<number> => {
  const file = path.resolve(policyFile);
  const doc = policySchema.safeParse(parseDocument(readFileSync(file, 'utf8')).toJS());
  if (!doc.success) {
    process.stderr.write(`policy ${policyFile} is invalid; run "lanegate check --policy ${policyFile}"\n`);
    return 1;
  }
  const policyDir = path.dirname(file);
  const stateDir = path.resolve(policyDir, expandPlaceholders(doc.data.gateway.stateDir, { policyDir, stateDir: '', node: process.execPath }));
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  chmodSync(stateDir, 0o700);
  await ensureSigningKey(stateDir);
  if (!demoSecrets) return 0;
  for (const [domainName, d] of Object.entries(doc.data.trustDomains)) {
    const lanes = Object.entries(doc.data.lanes)
      .filter(([, l]) => l.servers.some((s) => doc.data.servers[s]?.domain === domainName))
      .map(([n]) => n);
    for (const ref of Object.values(d.secrets ?? {})) {
      const base = path.resolve(policyDir, expandPlaceholders(ref.file, { policyDir, stateDir, node: process.execPath }));
      for (const f of base.includes('{lane}') ? lanes.map((l) => base.replaceAll('{lane}', l)) : [base]) {
        if (!f.startsWith(stateDir + path.sep) || existsSync(f)) continue;
        mkdirSync(path.dirname(f), { recursive: true, mode: 0o700 });
        writeFileSync(f, `demo-${randomBytes(16).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
        process.stderr.write(`created demo secret file ${path.relative(process.cwd(), f)}\n`);
      }
    }
  }
  return 0;
};
