#!/usr/bin/env node
// The hardening and wiring of deploy/systemd/lanegate.service, directive by directive.
//   node test/deploy/check-systemd-unit.mjs [path/to/lanegate.service] [path/to/policy.example.yaml]
//
// `systemd-analyze verify` (run by check-deploy.sh) catches syntax it can parse, but only WARNS
// on an unknown key or a bad value and never says a directive is missing; this file asserts the
// ones this deployment depends on. Parsing follows systemd: `#`/`;` comments, `\` continuations,
// a repeated key appends, an empty assignment resets the list.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';

const unitFile = path.resolve(process.argv[2] ?? 'deploy/systemd/lanegate.service');
const policyFile = path.resolve(process.argv[3] ?? 'deploy/policy.example.yaml');
let failures = 0;
const rule = (name, problem) => {
  if (problem) {
    failures++;
    console.log(`  FAIL ${name}: ${problem}`);
  } else console.log(`  ok   ${name}`);
};
console.log(`systemd unit: ${path.relative(process.cwd(), unitFile)}`);

/** section -> key -> list of assigned values (after resets). */
const unit = {};
let section = '';
const lines = readFileSync(unitFile, 'utf8')
  .replace(/\\\r?\n/g, ' ')
  .split(/\r?\n/);
for (const raw of lines) {
  const l = raw.trim();
  if (!l || l.startsWith('#') || l.startsWith(';')) continue;
  const sec = /^\[(.+)\]$/.exec(l);
  if (sec) {
    section = sec[1];
    unit[section] ??= {};
    continue;
  }
  const eq = l.indexOf('=');
  if (eq < 0 || !section) continue;
  const key = l.slice(0, eq).trim();
  const value = l.slice(eq + 1).trim();
  const s = unit[section];
  if (value === '') s[key] = [''];
  else s[key] = [...(s[key] ?? []).filter((v) => v !== ''), value];
}
const svc = unit.Service ?? {};
const last = (k) => svc[k]?.[svc[k].length - 1];
const words = (k) => (svc[k] ?? []).flatMap((v) => v.split(/\s+/)).filter(Boolean);

const exact = {
  User: 'lanegate',
  Group: 'lanegate',
  StateDirectory: 'lanegate',
  NoNewPrivileges: 'yes',
  ProtectSystem: 'strict',
  ProtectHome: 'yes',
  PrivateTmp: 'yes',
  PrivateDevices: 'yes',
  ProtectKernelTunables: 'yes',
  ProtectKernelModules: 'yes',
  ProtectKernelLogs: 'yes',
  ProtectControlGroups: 'yes',
  RestrictNamespaces: 'yes',
  LockPersonality: 'yes',
  SystemCallArchitectures: 'native',
  Restart: 'on-failure',
  KillMode: 'control-group',
  ExecReload: '/bin/kill -HUP $MAINPID',
};
for (const [k, v] of Object.entries(exact)) rule(`${k}=${v}`, last(k) === v ? '' : `found ${k}=${last(k) ?? '(unset)'}`);

const families = new Set(words('RestrictAddressFamilies'));
rule(
  'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6',
  families.size === 3 && ['AF_UNIX', 'AF_INET', 'AF_INET6'].every((f) => families.has(f)) ? '' : [...families].join(' ') || '(unset)',
);
rule(
  'CapabilityBoundingSet= (empty: no capabilities at all)',
  svc.CapabilityBoundingSet && words('CapabilityBoundingSet').length === 0 ? '' : `found ${last('CapabilityBoundingSet') ?? '(unset)'}`,
);
rule('no AmbientCapabilities', words('AmbientCapabilities').length === 0 ? '' : words('AmbientCapabilities').join(' '));
// V8's JIT needs pages that are writable and executable: node aborts under this setting.
rule(
  'MemoryDenyWriteExecute is not enabled (Node JIT)',
  /^(yes|true|on|1)$/i.test(last('MemoryDenyWriteExecute') ?? '') ? 'it is set' : '',
);
rule(
  'no DynamicUser (a static user shares the state dir with `sudo -u lanegate`)',
  /^(yes|true|on|1)$/i.test(last('DynamicUser') ?? '') ? 'DynamicUser=yes' : '',
);
rule(
  'ReadWritePaths includes /var/lib/lanegate',
  words('ReadWritePaths').includes('/var/lib/lanegate') ? '' : words('ReadWritePaths').join(' ') || '(unset)',
);
rule(
  'ReadOnlyPaths includes /etc/lanegate',
  words('ReadOnlyPaths').includes('/etc/lanegate') ? '' : words('ReadOnlyPaths').join(' ') || '(unset)',
);
rule(
  'Environment LANEGATE_HOME=/var/lib/lanegate',
  words('Environment').includes('LANEGATE_HOME=/var/lib/lanegate') ? '' : words('Environment').join(' ') || '(unset)',
);

const exec = last('ExecStart') ?? '';
rule(
  'ExecStart=/usr/bin/node /opt/lanegate/dist/cli/main.js serve --policy /etc/lanegate/policy.yaml',
  /^\/usr\/bin\/node \/opt\/lanegate\/dist\/cli\/main\.js serve --policy \/etc\/lanegate\/policy\.yaml(\s|$)/.test(exec)
    ? ''
    : exec || '(unset)',
);
rule('ExecStart keeps lane tokens out of the journal (--no-lane-configs)', /\s--no-lane-configs(\s|$)/.test(exec) ? '' : exec);

/** systemd time span ("20", "20s", "1min 30s") in seconds. */
const seconds = (v) => {
  if (!v) return Number.NaN;
  const units = { ms: 0.001, s: 1, sec: 1, m: 60, min: 60, h: 3600 };
  let total = 0;
  for (const m of v.matchAll(/(\d+(?:\.\d+)?)\s*([a-z]*)/g)) total += Number(m[1]) * (m[2] ? (units[m[2]] ?? Number.NaN) : 1);
  return total;
};
// The front waits up to 12 s for its hosts to stop their children; a shorter stop timeout would
// SIGKILL them mid-shutdown.
const stop = seconds(last('TimeoutStopSec'));
rule('TimeoutStopSec >= 13s (the front allows its hosts 12 s)', stop >= 13 ? '' : `TimeoutStopSec=${last('TimeoutStopSec') ?? '(unset)'}`);
rule('[Install] WantedBy=multi-user.target', unit.Install?.WantedBy?.includes('multi-user.target') ? '' : 'missing');

// The policy the unit serves must keep its state where the unit made it writable.
const policy = parseYaml(readFileSync(policyFile, 'utf8'));
const stateDir = policy?.gateway?.stateDir;
rule(
  `${path.relative(process.cwd(), policyFile)} gateway.stateDir = /var/lib/${last('StateDirectory') ?? '?'}`,
  stateDir === `/var/lib/${last('StateDirectory')}`
    ? ''
    : `gateway.stateDir is ${stateDir ?? '(unset: ./.lanegate beside the read-only policy)'}`,
);

if (failures) {
  console.log(`systemd unit: ${failures} rule(s) failed`);
  process.exit(1);
}
console.log('systemd unit: all rules passed');
