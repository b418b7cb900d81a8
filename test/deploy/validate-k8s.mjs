#!/usr/bin/env node
// Offline validation of deploy/k8s (no cluster, no schema download).
//   node test/deploy/validate-k8s.mjs [deploy/k8s] [deploy/policy.example.yaml] [deploy/container/Dockerfile]
//
// 1. schema: every document listed by kustomization.yaml is validated against the Kubernetes
//    OpenAPI schema compiled into `kubernetes-models` (npm, bundled validators: types, required
//    fields, enums, formats). Those validators accept unknown fields, and Kubernetes itself only
//    warns about them (a typo such as `readOnlyRootFileSystem` would be dropped silently), so:
// 2. strict fields: the same documents are type-checked by tsc against kubernetes-models' type
//    declarations with `satisfies`, which refuses any property the API does not define.
// 3. the deployment's own rules: DaemonSet shape and hardening, probes, mounts and volumes,
//    references to ConfigMaps and Secrets, and cross-checks with the policy (listen port, state
//    dir, one Secret per trust domain mounted where the policy reads it) and the image (uid).
// Exit 1 on any failure; every rule prints ok/FAIL.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments, parse as parseYaml } from 'yaml';

const here = path.dirname(fileURLToPath(import.meta.url));
const dir = path.resolve(process.argv[2] ?? 'deploy/k8s');
const policyFile = path.resolve(process.argv[3] ?? 'deploy/policy.example.yaml');
const dockerfile = path.resolve(process.argv[4] ?? 'deploy/container/Dockerfile');
const rel = (p) => path.relative(process.cwd(), p);
let failures = 0;
const rule = (name, problem) => {
  if (problem) {
    failures++;
    console.log(`  FAIL ${name}: ${problem}`);
  } else console.log(`  ok   ${name}`);
};
console.log(`kubernetes: ${rel(dir)}`);

// --- load what kustomization.yaml lists --------------------------------------------------------
const kust = parseYaml(readFileSync(path.join(dir, 'kustomization.yaml'), 'utf8'));
const knownKustKeys = new Set(['apiVersion', 'kind', 'namespace', 'resources', 'images', 'labels', 'commonAnnotations']);
rule(
  'kustomization.yaml: Kustomization with known keys only',
  kust?.kind !== 'Kustomization'
    ? `kind ${kust?.kind}`
    : Object.keys(kust)
        .filter((k) => !knownKustKeys.has(k))
        .join(', '),
);
const docs = [];
for (const res of kust.resources ?? []) {
  const file = path.join(dir, res);
  const parsed = parseAllDocuments(readFileSync(file, 'utf8'));
  const errors = parsed.flatMap((d) => d.errors.map((e) => e.message));
  rule(`${res}: parses as YAML`, errors.join('; '));
  parsed.forEach((d, i) => {
    const obj = d.toJS();
    if (obj) docs.push({ file: res, index: i, obj });
  });
}
const byKind = (kind) => docs.filter((d) => d.obj.kind === kind).map((d) => d.obj);
const named = (kind, name) => byKind(kind).find((o) => o.metadata?.name === name);

// --- 1. schema ---------------------------------------------------------------------------------
const require = createRequire(path.join(here, 'package.json'));
const modelPath = (o) => `kubernetes-models/${o.apiVersion}/${o.kind}`;
for (const d of docs) {
  const label = `${d.file}#${d.index} ${d.obj.kind ?? '?'}/${d.obj.metadata?.name ?? '?'}`;
  let Model;
  try {
    Model = require(modelPath(d.obj))[d.obj.kind];
  } catch {
    rule(`${label}: known apiVersion/kind`, `${d.obj.apiVersion}/${d.obj.kind} is not a Kubernetes built-in`);
    continue;
  }
  try {
    new Model(d.obj).validate();
    rule(`${label}: schema`, '');
  } catch (e) {
    rule(`${label}: schema`, (e.errors ?? [e]).map((x) => `${x.instancePath ?? ''} ${x.message}`).join('; '));
  }
}

// --- 2. strict fields (tsc) ---------------------------------------------------------------------
// Generated inside test/deploy/node_modules so that module resolution finds kubernetes-models;
// nothing there is committed or linted.
const work = path.join(here, 'node_modules', '.cache', 'lanegate-k8s-strict');
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
const known = docs.filter((d) => {
  try {
    require.resolve(modelPath(d.obj));
    return true;
  } catch {
    return false;
  }
});
const tsLines = [];
const origin = []; // generated line -> document
known.forEach((d, i) => {
  tsLines.push(`import type { I${d.obj.kind} as T${i} } from '${modelPath(d.obj)}';`);
  origin.push(undefined);
});
known.forEach((d, i) => {
  const body = `export const d${i} = ${JSON.stringify(d.obj, null, 2)} satisfies T${i};`.split('\n');
  for (const l of body) {
    tsLines.push(l);
    origin.push(d);
  }
});
writeFileSync(path.join(work, 'manifests.ts'), `${tsLines.join('\n')}\n`);
writeFileSync(
  path.join(work, 'tsconfig.json'),
  JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, module: 'NodeNext', moduleResolution: 'NodeNext', skipLibCheck: true, types: [] },
    files: ['manifests.ts'],
  }),
);
const tsc = path.resolve(here, '..', '..', 'node_modules', 'typescript', 'bin', 'tsc');
let tscOut = '';
try {
  execFileSync(process.execPath, [tsc, '-p', path.join(work, 'tsconfig.json'), '--pretty', 'false'], { encoding: 'utf8', stdio: 'pipe' });
} catch (e) {
  tscOut = `${e.stdout ?? ''}${e.stderr ?? ''}`.trim() || String(e);
}
const strictProblems = tscOut
  .split('\n')
  .filter(Boolean)
  .map((l) => {
    const m = /manifests\.ts\((\d+),\d+\): error TS\d+: (.*)$/.exec(l);
    if (!m) return l;
    const n = Number(m[1]) - 1;
    const d = origin[n];
    return `${d ? `${d.file}#${d.index} ${d.obj.kind}/${d.obj.metadata?.name}` : 'generated'}: ${m[2]} (near: ${tsLines[n]?.trim()})`;
  });
rule('strict fields (no property the Kubernetes API does not define)', strictProblems.join('\n         '));
rmSync(work, { recursive: true, force: true });

// --- 3. deployment rules ------------------------------------------------------------------------
const ns = kust.namespace;
rule('kustomization namespace is a Namespace it creates', ns && named('Namespace', ns) ? '' : `namespace ${ns ?? '(unset)'}`);

const dsList = byKind('DaemonSet');
rule('exactly one DaemonSet (one gateway per node)', dsList.length === 1 ? '' : `${dsList.length} DaemonSets`);
const ds = dsList[0] ?? {};
const tpl = ds.spec?.template ?? {};
const pod = tpl.spec ?? {};
const sel = ds.spec?.selector?.matchLabels ?? {};
const tplLabels = tpl.metadata?.labels ?? {};
rule(
  'DaemonSet selector matches the pod template labels',
  Object.keys(sel).length === 0
    ? 'empty selector'
    : Object.entries(sel)
        .filter(([k, v]) => tplLabels[k] !== v)
        .map(([k, v]) => `${k}=${v} not on the template`)
        .join('; '),
);
const surge = ds.spec?.updateStrategy?.rollingUpdate?.maxSurge;
rule(
  'rolling update never surges (one gateway per node port and state dir)',
  surge === undefined || surge === 0 || surge === '0' || surge === '0%' ? '' : `maxSurge ${surge}`,
);
rule('hostNetwork: true (lanes on the node reach 127.0.0.1)', pod.hostNetwork === true ? '' : `hostNetwork ${pod.hostNetwork}`);
rule('dnsPolicy: ClusterFirstWithHostNet', pod.dnsPolicy === 'ClusterFirstWithHostNet' ? '' : `dnsPolicy ${pod.dnsPolicy}`);
rule('no service account token in the pod', pod.automountServiceAccountToken === false ? '' : 'automountServiceAccountToken is not false');
rule(
  'pod securityContext: runAsNonRoot, seccomp RuntimeDefault',
  pod.securityContext?.runAsNonRoot === true && pod.securityContext?.seccompProfile?.type === 'RuntimeDefault'
    ? ''
    : JSON.stringify(pod.securityContext),
);
rule('no privileged host namespaces beyond the network', pod.hostPID || pod.hostIPC ? 'hostPID/hostIPC set' : '');

const containers = pod.containers ?? [];
const inits = pod.initContainers ?? [];
const gw = containers.find((c) => (c.args ?? []).includes('serve')) ?? containers[0] ?? {};
rule(
  'one gateway container running `serve`',
  containers.length === 1 && (gw.args ?? []).includes('serve') ? '' : `${containers.length} containers`,
);
for (const c of containers) {
  const sc = c.securityContext ?? {};
  const problems = [];
  if (sc.allowPrivilegeEscalation !== false) problems.push('allowPrivilegeEscalation is not false');
  if (sc.readOnlyRootFilesystem !== true) problems.push('readOnlyRootFilesystem is not true');
  if (!(sc.capabilities?.drop ?? []).includes('ALL')) problems.push('capabilities.drop lacks ALL');
  if ((sc.capabilities?.add ?? []).length) problems.push(`capabilities.add ${sc.capabilities.add}`);
  if (sc.privileged) problems.push('privileged');
  if (sc.runAsNonRoot === false || sc.runAsUser === 0) problems.push('runs as root');
  if ((sc.seccompProfile?.type ?? pod.securityContext?.seccompProfile?.type) !== 'RuntimeDefault')
    problems.push('no RuntimeDefault seccomp');
  rule(`container ${c.name}: hardened securityContext`, problems.join('; '));
  rule(
    `container ${c.name}: resources (requests, memory limit)`,
    c.resources?.requests && c.resources?.limits?.memory ? '' : JSON.stringify(c.resources ?? {}),
  );
}
for (const c of inits) {
  const sc = c.securityContext ?? {};
  const extra = (sc.capabilities?.add ?? []).filter((x) => x !== 'CHOWN');
  const problems = [];
  if (sc.allowPrivilegeEscalation !== false) problems.push('allowPrivilegeEscalation is not false');
  if (sc.readOnlyRootFilesystem !== true) problems.push('readOnlyRootFilesystem is not true');
  if (!(sc.capabilities?.drop ?? []).includes('ALL')) problems.push('capabilities.drop lacks ALL');
  if (extra.length) problems.push(`capabilities beyond CHOWN: ${extra}`);
  if (sc.privileged) problems.push('privileged');
  rule(`init container ${c.name}: drop ALL, at most CAP_CHOWN, no escalation`, problems.join('; '));
}

// Policy: what the gateway serves, from the ConfigMap the container mounts at --policy.
const policyArg = gw.args?.[gw.args.indexOf('--policy') + 1];
const mounts = [...containers, ...inits].flatMap((c) => (c.volumeMounts ?? []).map((m) => ({ ...m, container: c.name })));
const gwMounts = (gw.volumeMounts ?? []).map((m) => ({ ...m }));
const volumes = new Map((pod.volumes ?? []).map((v) => [v.name, v]));
rule(
  'every volumeMount names a volume of the pod',
  mounts
    .filter((m) => !volumes.has(m.name))
    .map((m) => `${m.container}: ${m.name}`)
    .join(', '),
);
rule('every volume is mounted', [...volumes.keys()].filter((v) => !mounts.some((m) => m.name === v)).join(', '));
const missingRefs = [];
for (const v of volumes.values()) {
  if (v.configMap) {
    const cm = named('ConfigMap', v.configMap.name);
    if (!cm) missingRefs.push(`ConfigMap ${v.configMap.name}`);
    for (const it of v.configMap.items ?? [])
      if (cm && !(it.key in (cm.data ?? {}))) missingRefs.push(`ConfigMap ${v.configMap.name} key ${it.key}`);
  }
  if (v.secret && !named('Secret', v.secret.secretName)) missingRefs.push(`Secret ${v.secret.secretName}`);
}
rule('every ConfigMap/Secret a volume references is in the kustomization', missingRefs.join(', '));

// The policy's ConfigMap is mounted as a directory (kubelet then follows updates by swapping its
// ..data symlink); a subPath mount is a copy taken at pod start that never changes.
const policyMount = gwMounts.find((m) => policyArg === m.mountPath || policyArg?.startsWith(`${m.mountPath}/`));
const policyVol = policyMount && volumes.get(policyMount.name);
const cm = policyVol?.configMap && named('ConfigMap', policyVol.configMap.name);
const inMount =
  policyMount?.subPath ??
  (policyMount && policyArg !== policyMount.mountPath ? policyArg.slice(policyMount.mountPath.length + 1) : undefined);
const items = policyVol?.configMap?.items;
const cmKey = inMount && (items ? items.find((i) => i.path === inMount)?.key : inMount);
const policyText = cmKey ? cm?.data?.[cmKey] : undefined;
rule(`--policy ${policyArg} is a file mounted from a ConfigMap`, policyText ? '' : 'no ConfigMap key mounted at that path');
rule(
  'the policy ConfigMap is mounted as a directory, not with subPath (a subPath mount never sees ConfigMap updates)',
  policyMount?.subPath ? `${policyMount.name} at ${policyMount.mountPath} uses subPath: ${policyMount.subPath}` : '',
);
rule(
  'the gateway runs serve --watch (a ConfigMap update reloads the policy without a restart)',
  gw.args?.[0] === 'serve' && gw.args.includes('--watch') ? '' : `args ${JSON.stringify(gw.args)}`,
);
const policyEnv = (gw.env ?? []).find((e) => e.name === 'LANEGATE_POLICY')?.value;
rule('LANEGATE_POLICY is the --policy file', policyEnv === undefined || policyEnv === policyArg ? '' : `LANEGATE_POLICY ${policyEnv}`);
const exampleText = readFileSync(policyFile, 'utf8');
rule(`ConfigMap policy is ${rel(policyFile)} verbatim`, policyText === exampleText ? '' : 'differs (edit both together)');
const policy = policyText ? parseYaml(policyText) : {};
const [, port] = /^(?:127\.\d+\.\d+\.\d+|\[::1\]|localhost):(\d+)$/.exec(policy?.gateway?.listen ?? '127.0.0.1:8750') ?? [];
rule('policy gateway.listen is loopback', port ? '' : `listen ${policy?.gateway?.listen}`);

for (const [probe, want] of [
  ['livenessProbe', '/healthz'],
  ['readinessProbe', '/readyz'],
]) {
  const h = gw[probe]?.httpGet;
  rule(
    `${probe}: GET ${want} on 127.0.0.1:${port}`,
    !h ? 'missing (httpGet)' : h.path === want && String(h.port) === String(port) && h.host === '127.0.0.1' ? '' : JSON.stringify(h),
  );
}

const stateDir = policy?.gateway?.stateDir;
const stateMount = gwMounts.find((m) => m.mountPath === stateDir);
const stateVol = stateMount && volumes.get(stateMount.name);
rule(
  `policy stateDir ${stateDir} persists on the node (hostPath DirectoryOrCreate, read-write)`,
  !stateMount
    ? 'no volume mounted there'
    : stateVol?.hostPath?.type === 'DirectoryOrCreate' && !stateMount.readOnly
      ? ''
      : JSON.stringify(stateVol),
);
const home = (gw.env ?? []).find((e) => e.name === 'LANEGATE_HOME')?.value;
rule('LANEGATE_HOME is the policy stateDir', home === stateDir ? '' : `LANEGATE_HOME ${home ?? '(unset)'}`);
rule(
  '/tmp is writable (emptyDir) under a read-only root',
  gwMounts.some((m) => m.mountPath === '/tmp' && volumes.get(m.name)?.emptyDir) ? '' : 'no emptyDir at /tmp',
);

// Secrets: each trust domain's files live in ONE Secret of its own, mounted read-only at
// /etc/lanegate/secrets/<domain>/, with one key per file the policy names.
const secretProblems = [];
const secretOfDomain = new Map();
for (const [domain, td] of Object.entries(policy?.trustDomains ?? {})) {
  for (const [name, ref] of Object.entries(td.secrets ?? {})) {
    const file = ref.file;
    const dirOf = path.posix.dirname(file);
    const key = path.posix.basename(file);
    if (dirOf !== `/etc/lanegate/secrets/${domain}`)
      secretProblems.push(`${domain}.${name}: ${file} is not under /etc/lanegate/secrets/${domain}/`);
    const m = gwMounts.find((x) => x.mountPath === dirOf);
    const v = m && volumes.get(m.name);
    if (!v?.secret) {
      secretProblems.push(`${domain}.${name}: no Secret mounted at ${dirOf}`);
      continue;
    }
    if (!m.readOnly) secretProblems.push(`${dirOf} is mounted read-write`);
    const sec = named('Secret', v.secret.secretName);
    if (sec && !(key in (sec.data ?? {})) && !(key in (sec.stringData ?? {})))
      secretProblems.push(`Secret ${sec.metadata.name} has no key ${key}`);
    if (v.secret.items) secretProblems.push(`${m.name}: items would hide keys; mount the whole Secret`);
    const prev = secretOfDomain.get(v.secret.secretName);
    if (prev && prev !== domain) secretProblems.push(`Secret ${v.secret.secretName} serves two domains (${prev}, ${domain})`);
    secretOfDomain.set(v.secret.secretName, domain);
  }
}
rule('each policy secret file is a key of its own domain’s Secret, mounted read-only where the policy reads it', secretProblems.join('; '));
const strayMounts = gwMounts.filter((m) => volumes.get(m.name)?.secret && !secretOfDomain.has(volumes.get(m.name).secret.secretName));
rule('no Secret mounted that no trust domain reads', strayMounts.map((m) => `${m.name} at ${m.mountPath}`).join(', '));
const modes = [...volumes.values()].filter((v) => v.secret).map((v) => v.secret.defaultMode);
rule(
  'secret files not world-readable (defaultMode 0400/0440)',
  modes.every((m) => m === 256 || m === 288) ? '' : `defaultMode ${modes.join(', ')}`,
);
const notPlaceholder = byKind('Secret').flatMap((s) =>
  [
    ...Object.entries(s.stringData ?? {}).map(([k, v]) => [k, String(v)]),
    ...Object.entries(s.data ?? {}).map(([k, v]) => [k, Buffer.from(String(v), 'base64').toString()]),
  ]
    .filter(([, v]) => !/PLACEHOLDER|REPLACE/i.test(v))
    .map(([k]) => `${s.metadata.name}.${k}`),
);
rule('example Secret values are placeholders (no real credential in the repository)', notPlaceholder.join(', '));

// Image: the pod's uid is the Dockerfile's USER, and the init container chowns to it.
const user = [...readFileSync(dockerfile, 'utf8').matchAll(/^USER\s+(\S+)/gm)].pop()?.[1] ?? '';
const [uid] = user.split(':');
rule(
  `pod runAsUser is the image USER (${user || 'none'})`,
  String(pod.securityContext?.runAsUser) === uid ? '' : `runAsUser ${pod.securityContext?.runAsUser}`,
);
const chown = inits.flatMap((c) => [...(c.command ?? []), ...(c.args ?? [])]).join(' ');
rule('init container hands the state dir to that uid', !inits.length || new RegExp(`chown ${uid}:`).test(chown) ? '' : chown);
const images = [...containers, ...inits].map((c) => c.image);
rule(
  'containers use the one image kustomization.yaml rewrites',
  images.every((i) => (kust.images ?? []).some((k) => i === k.name || i.startsWith(`${k.name}:`))) ? '' : images.join(', '),
);

if (failures) {
  console.log(`kubernetes: ${failures} rule(s) failed`);
  process.exit(1);
}
console.log('kubernetes: all rules passed');
