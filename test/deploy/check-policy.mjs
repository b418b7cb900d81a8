#!/usr/bin/env node
// `lanegate check` on the example production policy (strict schema, cross-references, layer one
// of the guard, secret files readable), as it would run on an installed host:
//   node test/deploy/check-policy.mjs [deploy/policy.example.yaml]      (needs a built dist/)
// Its absolute paths (/etc/lanegate, /var/lib/lanegate, /opt/lanegate) are moved under a temp
// dir, with a placeholder file for each secret the policy names; nothing else changes.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const policyFile = path.resolve(process.argv[2] ?? path.join(repo, 'deploy', 'policy.example.yaml'));
const tmp = mkdtempSync(path.join(os.tmpdir(), 'lanegate-policy-'));
const move = (s) =>
  s
    .replaceAll('/opt/lanegate', repo)
    .replaceAll('/etc/lanegate', path.join(tmp, 'etc'))
    .replaceAll('/var/lib/lanegate', path.join(tmp, 'state'));
let code = 0;
try {
  const text = readFileSync(policyFile, 'utf8');
  const doc = parseYaml(text);
  for (const td of Object.values(doc?.trustDomains ?? {})) {
    for (const ref of Object.values(td?.secrets ?? {})) {
      if (typeof ref?.file !== 'string' || ref.file.includes('{')) continue;
      const f = move(ref.file);
      mkdirSync(path.dirname(f), { recursive: true });
      writeFileSync(f, 'placeholder\n', { mode: 0o600 });
    }
  }
  const local = path.join(tmp, 'etc', 'policy.yaml');
  mkdirSync(path.dirname(local), { recursive: true });
  writeFileSync(local, move(text));
  try {
    const out = execFileSync(process.execPath, [path.join(repo, 'dist', 'cli', 'main.js'), 'check', '--policy', local], {
      encoding: 'utf8',
      stdio: 'pipe',
    });
    console.log(`  ok   lanegate check ${path.relative(process.cwd(), policyFile)}: ${out.trim().replace(/^.*?: /, '')}`);
  } catch (e) {
    code = 1;
    console.log(`  FAIL lanegate check ${path.relative(process.cwd(), policyFile)}:`);
    console.log(`${e.stdout ?? ''}${e.stderr ?? ''}`.trim().replaceAll(tmp, '<tmp>').replace(/^/gm, '         '));
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(code);
