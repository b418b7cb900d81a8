#!/usr/bin/env node
// Runs the gateway from the deploy artifacts, without Docker, a cluster or systemd, on loopback:
//   node test/deploy/smoke-runtime.mjs [deploy-dir]             container + DaemonSet layout
//   node test/deploy/smoke-runtime.mjs --systemd [deploy-dir]   the unit's ExecStart, in an emulation
//                                                               of its sandbox (root, strace, setpriv)
// Needs a built dist/ (npm run build).
//
// Both modes build the same file tree in a temp dir:
// - /opt/lanegate: package.json + `npm ci --omit=dev ...` (the command taken from the
//   Dockerfile's deps stage; systemd/README.md installs the same way) + dist/: proves the
//   runtime needs no devDependency.
// - /etc/lanegate: the ConfigMap's policy (= deploy/policy.example.yaml), and each Secret of
//   secret-example.yaml written as files at the DaemonSet's mount paths, as kubelet does.
// - /var/lib/lanegate: an empty state dir (first start).
// Absolute paths are moved under the temp dir and the port to a free one; nothing else changes.
// Container mode runs ENTRYPOINT + CMD and checks the Dockerfile's HEALTHCHECK command (must fail
// before start, pass after). Systemd mode runs ExecStart= with Environment= as the uid the unit
// would get (10001 here), with no new privileges, no capabilities, and every system call
// outside the unit's SystemCallFilter= failing with its SystemCallErrorNumber= (strace fault
// injection): the directives most likely to break Node or the MCP servers it starts. It does not
// emulate mount namespaces (ProtectSystem=, PrivateTmp=, ...). Exit 2 (skip) without root,
// strace, setpriv or systemd-analyze.
// Then, in both: /readyz, one tool call per trust domain through a lane token (each domain's
// host must hold ITS secret: compared by fingerprint), no lane token in the log, no secret in the
// front's environment, SIGHUP (reload) keeps it serving, SIGTERM stops every process within the
// stop timeout.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  renameSync,
  symlinkSync,
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments, parse as parseYaml, stringify as stringifyYaml } from 'yaml';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const systemd = process.argv.includes('--systemd');
const deploy = path.resolve(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? path.join(repo, 'deploy'));
const UID = 10001; // the unit's User=lanegate, emulated by number (no such user need exist here)
let failures = 0;
const rule = (name, problem) => {
  if (problem) {
    failures++;
    console.log(`  FAIL ${name}: ${problem}`);
  } else console.log(`  ok   ${name}`);
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const until = async (what, ms, fn) => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(250);
  }
};
const which = (prog) => process.env.PATH.split(':').find((d) => existsSync(path.join(d, prog)));
console.log(
  systemd
    ? 'systemd sandbox emulation (uid, privileges, syscall filter; loopback only)'
    : 'runtime smoke test (container/DaemonSet layout, loopback only)',
);

if (!existsSync(path.join(repo, 'dist', 'cli', 'main.js'))) {
  console.log('  FAIL dist/ is not built: run `npm run build` first');
  process.exit(1);
}
const newestSrc = Math.max(
  0,
  ...readdirSync(path.join(repo, 'src'), { recursive: true })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => statSync(path.join(repo, 'src', f)).mtimeMs),
);
if (newestSrc > statSync(path.join(repo, 'dist', 'cli', 'main.js')).mtimeMs)
  console.log('  note dist/ is older than src/: this tests the last build (run `npm run build` first)');
if (systemd) {
  const missing = ['strace', 'setpriv', 'systemd-analyze'].filter((p) => !which(p));
  if (process.getuid() !== 0 || missing.length) {
    console.log(`  SKIP needs root and ${['strace', 'setpriv', 'systemd-analyze'].join(', ')} (missing: ${missing.join(', ') || 'root'})`);
    process.exit(2);
  }
}

// --- what the artifacts say -------------------------------------------------------------------
const dockerText = readFileSync(path.join(deploy, 'container', 'Dockerfile'), 'utf8').replace(/\\\r?\n/g, ' ');
const jsonAfter = (re) => {
  const m = [...dockerText.matchAll(re)].pop();
  return m ? JSON.parse(m[1]) : undefined;
};
const entrypoint = jsonAfter(/^ENTRYPOINT\s+(\[.*\])\s*$/gm);
const cmd = jsonAfter(/^CMD\s+(\[.*\])\s*$/gm);
const healthcheck = jsonAfter(/^HEALTHCHECK\s.*?\bCMD\s+(\[.*\])\s*$/gm);
const npmCi = /\bRUN\s+(npm ci\b[^&\n]*--omit[= ]dev[^&\n]*)/.exec(dockerText)?.[1]?.trim();
if (!entrypoint || !cmd || !healthcheck || !npmCi) {
  const lacks = ['ENTRYPOINT', 'CMD', 'HEALTHCHECK', 'npm ci --omit=dev'].filter((_, i) => ![entrypoint, cmd, healthcheck, npmCi][i]);
  console.log(`  FAIL the Dockerfile lacks ${lacks.join(', ')}`);
  process.exit(1);
}
const k8sDir = path.join(deploy, 'k8s');
const kust = parseYaml(readFileSync(path.join(k8sDir, 'kustomization.yaml'), 'utf8'));
const docs = (kust.resources ?? []).flatMap((r) => parseAllDocuments(readFileSync(path.join(k8sDir, r), 'utf8')).map((d) => d.toJS()));
const ds = docs.find((d) => d?.kind === 'DaemonSet');
const gw = ds?.spec?.template?.spec?.containers?.[0] ?? {};
const vols = new Map((ds?.spec?.template?.spec?.volumes ?? []).map((v) => [v.name, v]));
const policyPath = gw.args?.[gw.args.indexOf('--policy') + 1] ?? '/etc/lanegate/policy.yaml';
// The ConfigMap mounted as a directory holding the policy (or, the old way, a subPath file).
const policyMount = (gw.volumeMounts ?? []).find((m) => m.mountPath === policyPath || policyPath.startsWith(`${m.mountPath}/`));
const cmVol = vols.get(policyMount?.name)?.configMap;
const cm = docs.find((d) => d?.kind === 'ConfigMap' && d.metadata?.name === cmVol?.name);
const inMount = policyMount?.subPath ?? policyPath.slice((policyMount?.mountPath.length ?? 0) + 1);
const policyKey = cmVol?.items ? cmVol.items.find((i) => i.path === inMount)?.key : inMount;
const policyText = cm?.data?.[policyKey ?? 'policy.yaml'];
if (!policyText) {
  console.log(`  FAIL no ConfigMap policy mounted at ${policyPath}`);
  process.exit(1);
}

/** The unit's [Service] directives (key -> values in order; systemd parsing as in check-systemd-unit.mjs). */
const unitService = () => {
  const out = {};
  let section = '';
  for (const raw of readFileSync(path.join(deploy, 'systemd', 'lanegate.service'), 'utf8')
    .replace(/\\\r?\n/g, ' ')
    .split('\n')) {
    const l = raw.trim();
    if (!l || l.startsWith('#') || l.startsWith(';')) continue;
    if (/^\[.+\]$/.test(l)) section = l;
    else if (section === '[Service]' && l.includes('=')) {
      const k = l.slice(0, l.indexOf('='));
      const v = l.slice(l.indexOf('=') + 1).trim();
      out[k] = v === '' ? [] : [...(out[k] ?? []), v];
    }
  }
  return out;
};

/**
 * The system calls a SystemCallFilter= list allows, with systemd's semantics: the first entry
 * decides allow- or deny-list; later entries add (allow) or remove (`~`) names or @groups.
 */
const allowedSyscalls = (filters) => {
  const groups = {};
  let cur;
  for (const line of execFileSync('systemd-analyze', ['syscall-filter'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split(
    '\n',
  )) {
    const s = line.trim();
    if (!s || s.startsWith('#')) continue;
    if (line.startsWith('@')) {
      cur = s.split(/\s/)[0];
      groups[cur] = [];
    } else if (cur) groups[cur].push(s.split(/\s/)[0]);
  }
  const expand = (name, seen = new Set()) => {
    if (!name.startsWith('@')) return [name];
    if (seen.has(name)) return [];
    seen.add(name);
    return (groups[name] ?? []).flatMap((x) => expand(x, seen));
  };
  const every = new Set(Object.keys(groups).flatMap((g) => expand(g)));
  let allowed;
  for (const f of filters) {
    const deny = f.startsWith('~');
    const names = new Set(
      f
        .replace(/^~/, '')
        .split(/\s+/)
        .filter(Boolean)
        .flatMap((n) => expand(n)),
    );
    if (allowed === undefined) allowed = deny ? new Set([...every].filter((n) => !names.has(n))) : names;
    else for (const n of names) deny ? allowed.delete(n) : allowed.add(n);
  }
  return allowed;
};

// --- assemble the filesystem -------------------------------------------------------------------
const tmp = mkdtempSync(path.join(os.tmpdir(), 'lanegate-smoke-'));
chmodSync(tmp, 0o755); // traversable by the unit's uid in systemd mode
const app = path.join(tmp, 'opt', 'lanegate');
const etc = path.join(tmp, 'etc', 'lanegate');
const state = path.join(tmp, 'var', 'lib', 'lanegate');
const move = (s) => s.replaceAll('/opt/lanegate', app).replaceAll('/etc/lanegate', etc).replaceAll('/var/lib/lanegate', state);
let front;
try {
  mkdirSync(app, { recursive: true });
  mkdirSync(etc, { recursive: true });
  mkdirSync(path.dirname(state), { recursive: true }); // 0755: only the state dir itself is private
  mkdirSync(state, { mode: 0o700 });
  cpSync(path.join(repo, 'package.json'), path.join(app, 'package.json'));
  cpSync(path.join(repo, 'package-lock.json'), path.join(app, 'package-lock.json'));
  // --prefer-offline: the packages are in npm's cache after the root `npm ci`.
  const t0 = Date.now();
  try {
    execFileSync('sh', ['-c', `${npmCi} --prefer-offline`], { cwd: app, stdio: 'pipe', encoding: 'utf8' });
    rule(`runtime deps: ${npmCi} (${((Date.now() - t0) / 1000).toFixed(1)} s)`, '');
  } catch (e) {
    rule(`runtime deps: ${npmCi}`, `${e.stderr ?? e}`.trim().split('\n').slice(-5).join(' | '));
    throw new Error('cannot continue without runtime deps');
  }
  rmSync(path.join(app, 'package-lock.json'));
  cpSync(path.join(repo, 'dist'), path.join(app, 'dist'), { recursive: true });
  const devDeps = ['typescript', 'tsx', '@biomejs/biome', '@modelcontextprotocol/server-everything'];
  rule('no devDependency in the runtime tree', devDeps.filter((p) => existsSync(path.join(app, 'node_modules', p))).join(', '));

  const port = await new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
  const policy = parseYaml(policyText);
  const listen = policy.gateway?.listen ?? '127.0.0.1:8750';
  const localText = move(policyText).replace(`listen: ${listen}`, `listen: 127.0.0.1:${port}`);
  // As kubelet lays out a ConfigMap volume mounted as a directory: the data in a timestamped
  // directory, `..data` a symlink to it, each key a symlink through `..data`. An update writes a
  // new directory and renames a new symlink over `..data` (swapConfigMap below). A subPath mount
  // is a plain copy that kubelet never updates.
  const cmDir = policyMount && !policyMount.subPath && !systemd ? move(policyMount.mountPath) : undefined;
  const localPolicy = cmDir ? path.join(cmDir, inMount) : path.join(etc, path.basename(policyPath));
  let generation = 0;
  const swapConfigMap = (text) => {
    generation += 1;
    const gen = `..2026_01_01_00_00_0${generation}.${generation}`;
    mkdirSync(path.join(cmDir, gen, path.dirname(inMount)), { recursive: true });
    writeFileSync(path.join(cmDir, gen, inMount), text);
    symlinkSync(gen, path.join(cmDir, '..data_tmp'));
    renameSync(path.join(cmDir, '..data_tmp'), path.join(cmDir, '..data'));
    return gen;
  };
  if (cmDir) {
    mkdirSync(cmDir, { recursive: true });
    swapConfigMap(localText);
    symlinkSync(path.join('..data', inMount), localPolicy);
  } else writeFileSync(localPolicy, localText);
  // kubelet: each key of the mounted Secret becomes a file in the mount directory. In systemd
  // mode the same files get the README's ownership: root:lanegate, 0640 in 0750 directories.
  for (const m of gw.volumeMounts ?? []) {
    const sv = vols.get(m.name)?.secret;
    if (!sv) continue;
    const sec = docs.find((d) => d?.kind === 'Secret' && d.metadata?.name === sv.secretName);
    const into = move(m.mountPath);
    mkdirSync(into, { recursive: true });
    const entries = [
      ...Object.entries(sec?.stringData ?? {}),
      ...Object.entries(sec?.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]),
    ];
    for (const [k, v] of entries) writeFileSync(path.join(into, k), v, { mode: 0o440 });
  }
  if (systemd) {
    const walk = (p) => {
      chownSync(p, 0, UID);
      chmodSync(p, statSync(p).isDirectory() ? 0o750 : 0o640);
      if (statSync(p).isDirectory()) for (const f of readdirSync(p)) walk(path.join(p, f));
    };
    walk(etc);
    chownSync(state, UID, UID);
  }
  const secretValues = new Map(); // domain -> value of its first secret file
  for (const [domain, td] of Object.entries(policy.trustDomains ?? {})) {
    const first = Object.values(td.secrets ?? {})[0];
    if (first && existsSync(move(first.file))) secretValues.set(domain, readFileSync(move(first.file), 'utf8').trim());
  }
  const noFile = Object.entries(policy.trustDomains ?? {}).filter(([d, td]) => td.secrets && !secretValues.has(d));
  rule('every policy secret file exists where the DaemonSet mounts its Secret', noFile.map(([d]) => d).join(', '));

  // --- how to start it ---------------------------------------------------------------------------
  let argv;
  let env;
  let wrap = [];
  const url = `http://127.0.0.1:${port}`;
  if (systemd) {
    const svc = unitService();
    const exec = (svc.ExecStart ?? [''])[0].split(/\s+/);
    argv = [exec[0] === '/usr/bin/node' && !existsSync('/usr/bin/node') ? process.execPath : exec[0], ...exec.slice(1).map(move)];
    env = { PATH: '/usr/local/bin:/usr/bin:/bin' };
    for (const e of (svc.Environment ?? []).flatMap((v) => v.split(/\s+/)))
      env[e.slice(0, e.indexOf('='))] = move(e.slice(e.indexOf('=') + 1));
    const allowed = allowedSyscalls(svc.SystemCallFilter ?? []);
    const errno = (svc.SystemCallErrorNumber ?? ['EPERM'])[0];
    const noNewPrivs = /^(yes|true|on|1)$/i.test((svc.NoNewPrivileges ?? [''])[0]);
    const noCaps = svc.CapabilityBoundingSet !== undefined && svc.CapabilityBoundingSet.length === 0;
    // As systemd does: first the user and privileges (setpriv, which execs in place), then the
    // syscall filter on ExecStart and everything it starts (strace, running as that user,
    // traces its own child; the filter does not apply to setpriv's own setup calls).
    wrap = ['setpriv', `--reuid=${UID}`, `--regid=${UID}`, '--clear-groups'];
    if (noNewPrivs) wrap.push('--no-new-privs');
    if (noCaps) wrap.push('--bounding-set=-all', '--inh-caps=-all');
    wrap.push('--');
    if (allowed) {
      // `?name`: strace ignores names it does not know on this architecture.
      const set = [...allowed].map((n) => `?${n}`).join(',');
      wrap.push('strace', '-f', '-qq', '-o', '/dev/null', '-e', `inject=!${set}:error=${errno}`);
    }
    console.log(
      `  ...  sandbox: uid ${UID}${noNewPrivs ? ', no new privileges' : ''}${noCaps ? ', no capabilities' : ''}, ` +
        `${allowed ? `${allowed.size} system calls allowed (others ${errno})` : 'no syscall filter'}`,
    );
  } else {
    argv = [
      process.execPath,
      path.join(app, entrypoint[1]),
      ...entrypoint.slice(2),
      ...cmd.map((a, i) => (cmd[i - 1] === '--policy' ? localPolicy : a)),
    ];
    env = { PATH: process.env.PATH, NODE_ENV: 'production', HOME: state, LANEGATE_HOME: state, LANEGATE_POLICY: localPolicy };
  }
  const cli = argv.find((a) => a.endsWith(path.join('dist', 'cli', 'main.js')));
  const health = (u) =>
    new Promise((resolve) => {
      const [prog, ...rest] = healthcheck;
      const p = spawn(prog === 'node' ? process.execPath : prog, rest, { env: { ...env, LANEGATE_HEALTH_URL: u }, stdio: 'ignore' });
      const t = setTimeout(() => p.kill('SIGKILL'), 5000);
      p.on('exit', (code) => {
        clearTimeout(t);
        resolve(code);
      });
    });
  if (!systemd)
    rule('HEALTHCHECK fails while nothing listens', (await health(`${url}/healthz`)) !== 0 ? '' : 'exit 0 with the gateway down');

  // --- run -------------------------------------------------------------------------------------
  let log = '';
  const full = [...wrap, ...argv];
  front = spawn(full[0], full.slice(1), { cwd: systemd ? state : app, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  front.stdout.on('data', (b) => {
    log += b;
  });
  front.stderr.on('data', (b) => {
    log += b;
  });
  const exited = new Promise((resolve) => front.on('exit', (code, sig) => resolve({ code, sig })));
  console.log(`  ...  started: ${argv.map((a) => a.replace(tmp, '<tmp>')).join(' ')}`);

  const healthy = systemd ? async () => (await fetch(`${url}/healthz`)).ok : async () => (await health(`${url}/healthz`)) === 0;
  const healthName = systemd ? 'GET /healthz 200' : 'Dockerfile HEALTHCHECK passes against the running gateway';
  try {
    await until('health', 45_000, healthy);
    rule(healthName, '');
  } catch (e) {
    rule(healthName, `${e.message}\n${log.slice(-2000) || '(no output)'}`);
    throw e;
  }
  const readyMs = Date.now();
  try {
    await until('/readyz 200', 30_000, async () => (await fetch(`${url}/readyz`)).status === 200);
    rule(`/readyz 200 (every shared-domain host up, ${Date.now() - readyMs} ms)`, '');
  } catch (e) {
    rule('/readyz 200', `${e.message}: ${await (await fetch(`${url}/readyz`)).text()}`);
  }
  rule('no lane token printed into the log (--no-lane-configs)', /eyJ[A-Za-z0-9_-]{20,}\./.test(log) ? 'a JWT appears in the output' : '');

  // One call per trust domain, through the lane that reaches it; each host must hold its own
  // domain's secret (the demo server's whoami answers a sha256 fingerprint, never the value).
  // Tokens are issued as the service user, as the READMEs say.
  const calls = [];
  for (const [laneName, lane] of Object.entries(policy.lanes ?? {})) {
    for (const s of lane.servers ?? []) {
      const server = policy.servers?.[s];
      if (server && secretValues.has(server.domain) && !calls.some((c) => c.domain === server.domain))
        calls.push({ lane: laneName, server, name: s, domain: server.domain });
    }
  }
  const whoami = async (token, name) => {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'deploy-smoke', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const res = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': name,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {}, _meta: meta } }),
    });
    return { status: res.status, body: await res.text() };
  };
  for (const c of calls) {
    const issue = [...(systemd ? ['setpriv', `--reuid=${UID}`, `--regid=${UID}`, '--clear-groups', '--'] : []), argv[0], cli];
    const token = execFileSync(issue[0], [...issue.slice(1), 'token', 'issue', '--policy', localPolicy, '--lane', c.lane, '--quiet'], {
      cwd: systemd ? state : app,
      env,
      encoding: 'utf8',
    }).trim();
    const name = `${c.server.prefix}_whoami`;
    const { status, body } = await whoami(token, name);
    const want = createHash('sha256').update(secretValues.get(c.domain)).digest('hex').slice(0, 12);
    rule(
      `lane ${c.lane} -> ${name}: host of ${c.domain} holds that domain's secret`,
      body.includes(`credential fingerprint ${want}`) ? '' : `${status} ${body.slice(0, 300)}`,
    );
  }

  // --- a ConfigMap update, applied in place (serve --watch) ---------------------------------------
  // kubelet's atomic swap with one more lane: served without a restart. Then a broken policy:
  // refused, and the running one keeps serving. A subPath mount never sees the update at all.
  if (!systemd && calls.length > 0) {
    const first = calls[0];
    const probeLane = 'watch-smoke';
    const next = parseYaml(localText);
    next.lanes = { ...(next.lanes ?? {}), [probeLane]: { servers: [first.name] } };
    const issue = (lane) =>
      execFileSync(argv[0], [cli, 'token', 'issue', '--policy', localPolicy, '--lane', lane, '--quiet'], {
        cwd: app,
        env,
        encoding: 'utf8',
      }).trim();
    const call = async (lane, token = issue(lane)) => whoami(token, `${first.server.prefix}_whoami`);
    const want = createHash('sha256').update(secretValues.get(first.domain)).digest('hex').slice(0, 12);
    if (cmDir) {
      swapConfigMap(stringifyYaml(next));
      const applied = await until('the updated ConfigMap to apply', 20_000, async () => (await call(probeLane)).body.includes(want)).then(
        () => true,
        () => false,
      );
      rule(
        'a ConfigMap update (..data swap) applies without a restart (serve --watch)',
        applied ? '' : `lane ${probeLane} not served:\n${log.slice(-1500)}`,
      );
      const kept = issue(first.lane); // before the broken policy: `token issue` refuses one too
      swapConfigMap(`${stringifyYaml(next)}\nbogusKey: 1\n`);
      const refused = await until('the broken policy to be refused', 20_000, async () => /reload_refused/.test(log)).then(
        () => true,
        () => false,
      );
      const still = (await call(first.lane, kept)).body.includes(want);
      rule(
        'a broken ConfigMap update is refused and logged; the running policy keeps serving',
        refused && still ? '' : `refused ${refused}, serving ${still}`,
      );
    } else
      rule(
        'a ConfigMap update applies without a restart',
        'the policy is not a ConfigMap mounted as a directory (subPath: kubelet never updates it)',
      );
  }

  // --- the process tree ------------------------------------------------------------------------
  // Every descendant, found through /proc (a child in its own process group counts too).
  const procs = new Map();
  const descendants = () => {
    procs.clear();
    for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        procs.set(Number(pid), { ppid: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]), cmdline });
      } catch {}
    }
    const tree = new Set([front.pid]);
    for (let grew = true; grew; ) {
      grew = false;
      for (const [pid, p] of procs)
        if (tree.has(p.ppid) && !tree.has(pid)) {
          tree.add(pid);
          grew = true;
        }
    }
    return tree;
  };
  let tree = descendants();
  // The front is `node .../dist/cli/main.js serve ...` itself (not strace or setpriv around it).
  const frontPid = [...tree].find((pid) => procs.get(pid)?.cmdline[1]?.endsWith('main.js') && procs.get(pid)?.cmdline[2] === 'serve');
  console.log(`  ...  process tree: ${tree.size} processes (${systemd ? 'strace, ' : ''}front, hosts, MCP servers)`);
  const environ = frontPid ? readFileSync(`/proc/${frontPid}/environ`, 'utf8') : '';
  rule(
    'the front process has no secret in its environment',
    !frontPid
      ? 'front not found'
      : [...secretValues.values()].some((v) => environ.includes(v))
        ? 'a secret value is in /proc/PID/environ'
        : '',
  );
  if (systemd) {
    const wrongUid = [...tree].filter((pid) => {
      try {
        const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
        return uid !== UID;
      } catch {
        return false;
      }
    });
    rule(`every gateway process runs as uid ${UID}`, wrongUid.length ? `pids ${wrongUid.join(', ')}` : '');
  }
  rule('state dir is private (0700)', (statSync(state).mode & 0o777) === 0o700 ? '' : (statSync(state).mode & 0o777).toString(8));
  rule('lane-token signing key created in the state dir', existsSync(path.join(state, 'keys')) ? '' : 'no keys/');

  // --- reload ----------------------------------------------------------------------------------
  // ExecReload= (kill -HUP $MAINPID) and `docker kill --signal HUP`: the gateway must survive it
  // and keep serving (Node's default for SIGHUP is to exit).
  if (frontPid) {
    process.kill(frontPid, 'SIGHUP');
    await sleep(1500);
    let alive = true;
    try {
      process.kill(frontPid, 0);
    } catch {
      alive = false;
    }
    const ok =
      alive &&
      (await fetch(`${url}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      ));
    rule('SIGHUP (reload) keeps the gateway serving', ok ? '' : alive ? '/readyz not 200 after SIGHUP' : 'the front exited on SIGHUP');
  }
  tree = new Set([...tree, ...descendants()]);

  // --- stop ------------------------------------------------------------------------------------
  const stopStart = Date.now();
  process.kill(frontPid ?? front.pid, 'SIGTERM');
  const grace = 20_000; // TimeoutStopSec / terminationGracePeriodSeconds
  let timer;
  const r = await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, grace)))]);
  clearTimeout(timer);
  rule(`SIGTERM stops the front within ${grace / 1000} s`, r ? '' : 'still running');
  await sleep(500);
  const alive = [...tree].filter((pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  });
  rule(
    `every host and MCP server child exits with it (${Date.now() - stopStart} ms)`,
    alive.length ? `still running: ${alive.join(', ')}` : '',
  );
} catch (e) {
  if (!failures) rule('smoke test', e.message);
} finally {
  if (front?.pid) {
    try {
      process.kill(-front.pid, 'SIGKILL');
    } catch {}
  }
  rmSync(tmp, { recursive: true, force: true });
}
const what = systemd ? 'systemd sandbox emulation' : 'runtime smoke test';
if (failures) {
  console.log(`${what}: ${failures} check(s) failed`);
  process.exit(1);
}
console.log(`${what}: all checks passed`);
