#!/usr/bin/env node
// Offline Dockerfile lint for deploy/container/Dockerfile.
//   node test/deploy/lint-dockerfile.mjs [path/to/Dockerfile]
//
// hadolint cannot run here: Debian bookworm has no package, and the npm `hadolint` wrapper
// downloads its binary at install time (no network but the registries). So:
//   1. syntax: dockerfile-utils (the validator behind VS Code's Dockerfile support; pure JS,
//      every check raised to an error): unknown instructions and flags, bad arguments, etc.
//   2. rules of this project, on the dockerfile-ast parse (below, one `rule(...)` each).
//   3. the ignore file beside it (<Dockerfile>.dockerignore): evaluated with Docker's
//      last-match-wins semantics against paths that must stay out (local state holds the demo
//      signing key and secrets) or must be in (the build needs them).
// Exit 1 on any failure; every rule prints ok/FAIL.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DockerfileParser } from 'dockerfile-ast';
import { validate } from 'dockerfile-utils';

const file = path.resolve(process.argv[2] ?? 'deploy/container/Dockerfile');
const text = readFileSync(file, 'utf8');
let failures = 0;
const rule = (name, problem) => {
  if (problem) {
    failures++;
    console.log(`  FAIL ${name}: ${problem}`);
  } else console.log(`  ok   ${name}`);
};
console.log(`dockerfile: ${path.relative(process.cwd(), file)}`);

// --- 1. syntax -------------------------------------------------------------------------------
const ERROR = 2; // dockerfile-utils ValidationSeverity.ERROR
const diagnostics = validate(text, {
  deprecatedMaintainer: ERROR,
  directiveCasing: ERROR,
  emptyContinuationLine: ERROR,
  instructionCasing: ERROR,
  instructionCmdMultiple: ERROR,
  instructionEntrypointMultiple: ERROR,
  instructionHealthcheckMultiple: ERROR,
  instructionJSONInSingleQuotes: ERROR,
  instructionWorkdirRelative: ERROR,
});
rule('syntax (dockerfile-utils validate)', diagnostics.map((d) => `line ${d.range.start.line + 1}: ${d.message}`).join('; '));

// --- 2. rules --------------------------------------------------------------------------------
const df = DockerfileParser.parse(text);
const stages = [];
for (const ins of df.getInstructions()) {
  const kw = ins.getKeyword();
  if (kw === 'FROM') stages.push({ from: ins, name: ins.getBuildStage(), instructions: [] });
  else if (stages.length > 0) stages[stages.length - 1].instructions.push(ins);
}
const args = (ins) => ins.getArguments().map((a) => a.getValue());
const json = (ins) => (typeof ins.getJSONStrings === 'function' ? ins.getJSONStrings().map((s) => s.getJSONValue()) : []);
const line = (ins) => `line ${ins.getRange().start.line + 1}`;
const of = (stage, kw) => stage.instructions.filter((i) => i.getKeyword() === kw);
const final = stages[stages.length - 1];
const stageNames = new Set(stages.map((s) => s.name).filter(Boolean));

rule('multi-stage build (a build stage and a runtime stage)', stages.length >= 2 ? '' : `${stages.length} stage(s)`);

const badBases = [];
for (const s of stages) {
  const image = s.from.getImageName();
  if (stageNames.has(image)) continue; // FROM an earlier stage
  const tag = s.from.getImageTag();
  const digest = s.from.getImageDigest();
  if (digest) continue; // pinned by digest: fine whatever the tag
  if (!tag) badBases.push(`${line(s.from)} ${image} has no tag`);
  else if (tag === 'latest') badBases.push(`${line(s.from)} ${image}:latest`);
  else if (!/^\d/.test(tag)) badBases.push(`${line(s.from)} ${image}:${tag} does not pin a version`);
}
rule('base images pinned (a version tag or a digest; never latest)', badBases.join('; '));

const adds = stages.flatMap((s) => of(s, 'ADD')).filter((i) => args(i).some((a) => /^(https?|git|ssh):\/\/|^git@/.test(a)));
rule('no ADD of a URL or git source', adds.map((i) => `${line(i)} ADD ${args(i).join(' ')}`).join('; '));

const runs = stages.flatMap((s) => of(s, 'RUN'));
const npmInstall = runs.filter((i) => /\bnpm\s+(install|i|add)\b/.test(i.getRawArgumentsContent() ?? ''));
rule('dependencies installed with npm ci (lockfile), never npm install', npmInstall.map(line).join('; '));

// What the runtime stage ships: node_modules from a stage that ran `npm ci --omit=dev`, dist/
// from the build, and package.json ("type": "module"). test/deploy/smoke-runtime.mjs assembles
// exactly these three, so this rule ties the smoke test to the image.
const copies = of(final, 'COPY').map((i) => ({ from: i.getFromFlag()?.getValue() ?? null, srcs: args(i).slice(0, -1), ins: i }));
const nm = copies.find((c) => c.srcs.some((s) => /(^|\/)node_modules\/?$/.test(s)));
const nmStage = nm?.from ? stages.find((s) => s.name === nm.from) : undefined;
const omitDev = nmStage && of(nmStage, 'RUN').some((i) => /\bnpm\s+ci\b[^&|;]*--omit[= ]dev/.test(i.getRawArgumentsContent() ?? ''));
rule(
  'runtime node_modules come from `npm ci --omit=dev` in another stage',
  !nm
    ? 'final stage copies no node_modules'
    : !nmStage
      ? 'node_modules not copied from a build stage'
      : omitDev
        ? ''
        : `stage ${nm.from} has no npm ci --omit=dev`,
);
rule(
  'runtime copies dist/ from a build stage',
  copies.some((c) => c.from && c.srcs.some((s) => /(^|\/)dist\/?$/.test(s))) ? '' : 'no COPY --from=<stage> .../dist',
);
rule('runtime copies package.json ("type": "module")', copies.some((c) => c.srcs.includes('package.json')) ? '' : 'no COPY package.json');

const users = of(final, 'USER');
const user = users.length ? args(users[users.length - 1])[0] : undefined;
const [uid] = (user ?? '').split(':');
rule('final stage runs as a non-root USER', !user ? 'no USER in the final stage' : uid === 'root' || uid === '0' ? `USER ${user}` : '');
rule(
  'final USER is numeric uid:gid (Kubernetes runAsNonRoot can verify it)',
  user && /^\d+(:\d+)?$/.test(user) ? '' : `USER ${user ?? '(none)'}`,
);

const hcs = of(final, 'HEALTHCHECK');
const hc = hcs[hcs.length - 1];
// HEALTHCHECK is not a JSON instruction in dockerfile-ast: take the text after CMD, which must be
// a JSON array (exec form: no shell in the probe, so nothing to quote wrong).
const hcCmd = (() => {
  const raw = (hc?.getRawArgumentsContent() ?? '').replace(/\\\r?\n/g, ' ');
  const m = /\bCMD\s+(\[[\s\S]*\])\s*$/.exec(raw);
  try {
    const v = m ? JSON.parse(m[1]) : [];
    return Array.isArray(v) ? v.map(String) : [];
  } catch {
    return [];
  }
})();
rule(
  'HEALTHCHECK in the final stage, exec form',
  !hc ? 'none' : hc.getSubcommand()?.getValue().toUpperCase() === 'NONE' ? 'HEALTHCHECK NONE' : hcCmd.length ? '' : 'not exec (JSON) form',
);
rule('HEALTHCHECK needs no curl/wget (absent from slim images)', hcCmd.some((a) => /\b(curl|wget)\b/.test(a)) ? hcCmd.join(' ') : '');
rule(
  'HEALTHCHECK probes /healthz',
  hc && /healthz/.test(`${hcCmd.join(' ')} ${text.match(/LANEGATE_HEALTH_URL=(\S+)/)?.[1] ?? ''}`) ? '' : 'no /healthz',
);

const eps = of(final, 'ENTRYPOINT');
const ep = eps.length ? json(eps[eps.length - 1]) : [];
rule(
  'ENTRYPOINT ["node", "dist/cli/main.js"]',
  JSON.stringify(ep) === JSON.stringify(['node', 'dist/cli/main.js']) ? '' : JSON.stringify(ep),
);
const cmds = of(final, 'CMD');
const cmd = cmds.length ? json(cmds[cmds.length - 1]) : [];
rule(
  'CMD serve --policy /etc/lanegate/policy.yaml (exec form)',
  cmd[0] === 'serve' && cmd[cmd.indexOf('--policy') + 1] === '/etc/lanegate/policy.yaml' ? '' : JSON.stringify(cmd),
);
rule('CMD does not print lane tokens into the log (--no-lane-configs)', cmd.includes('--no-lane-configs') ? '' : JSON.stringify(cmd));
rule('CMD reloads an edited policy by itself (--watch)', cmd.includes('--watch') ? '' : JSON.stringify(cmd));

const volumes = of(final, 'VOLUME').flatMap((i) => (json(i).length ? json(i) : args(i)));
rule('state dir is a VOLUME (/var/lib/lanegate)', volumes.includes('/var/lib/lanegate') ? '' : `VOLUME ${volumes.join(' ') || '(none)'}`);

const envs = stages.flatMap((s) => [...of(s, 'ENV'), ...of(s, 'ARG')]);
const secretish = envs.filter((i) => /(TOKEN|SECRET|PASSWORD|PRIVATE|CREDENTIAL)[A-Z_]*\s*=/i.test(i.getRawArgumentsContent() ?? ''));
rule(
  'no secret-looking ENV/ARG baked into the image',
  secretish.map((i) => `${line(i)} ${i.getKeyword()} ${i.getRawArgumentsContent()}`).join('; '),
);

// --- 3. ignore file --------------------------------------------------------------------------
// Docker semantics: patterns in order, the last one that matches a path or any of its parent
// directories decides; `!` re-includes. `*` and `?` stay within one path segment, `**` spans any.
const ignoreFile = `${file}.dockerignore`;
let patterns = [];
try {
  patterns = readFileSync(ignoreFile, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const negate = l.startsWith('!');
      const p = path.posix.normalize((negate ? l.slice(1) : l).trim()).replace(/^\/+|\/+$/g, '');
      const re = p
        .split(/(\*\*\/?|\*|\?)/)
        .map((part) => {
          if (part === '**/' || part === '**') return '(?:.*/)?';
          if (part === '*') return '[^/]*';
          if (part === '?') return '[^/]';
          return part.replace(/[.+^${}()|[\]\\]/g, '\\$&');
        })
        .join('');
      return { negate, re: new RegExp(`^${re}$`) };
    });
  rule(`ignore file exists (${path.basename(ignoreFile)})`, '');
} catch {
  rule(`ignore file exists (${path.basename(ignoreFile)})`, `missing ${ignoreFile}`);
}
const excluded = (p) => {
  const parts = p.split('/');
  let out = false;
  for (const pat of patterns) {
    for (let i = 1; i <= parts.length; i++) {
      if (pat.re.test(parts.slice(0, i).join('/'))) {
        out = !pat.negate;
        break;
      }
    }
  }
  return out;
};
const mustExclude = [
  '.lanegate/keys/20260101T000000-abcd.private.jwk',
  '.lanegate/secrets/mailbox-x.token',
  'node_modules/yaml/package.json',
  'dist/cli/main.js',
  '.git/config',
  'test/deploy/node_modules/x/index.js',
  'src/.lanegate/keys/k.private.jwk',
];
const mustInclude = ['package.json', 'package-lock.json', 'tsconfig.json', 'src/cli/main.ts'];
rule('ignore file keeps local state, node_modules, dist and .git out', mustExclude.filter((p) => !excluded(p)).join(', '));
rule('ignore file lets in what the build stage copies', mustInclude.filter((p) => excluded(p)).join(', '));

if (failures) {
  console.log(`dockerfile: ${failures} rule(s) failed`);
  process.exit(1);
}
console.log('dockerfile: all rules passed');
