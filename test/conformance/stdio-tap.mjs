#!/usr/bin/env node
// A transparent stdio tap for evidence: `node stdio-tap.mjs LOGFILE SCRIPT [ARGS...]` runs
// `node SCRIPT ARGS...`, relays stdin/stdout byte for byte, and appends every newline-delimited
// message to LOGFILE as JSONL {at, dir: "in"|"out", line} ("in" = lanegate -> server). Used by
// run.mjs --tap to show exactly what lanegate sent to, and received from, the upstream.
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';

const [logFile, script, ...args] = process.argv.slice(2);
const child = spawn(process.execPath, [script, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
const tap = (dir) => {
  let pending = '';
  return (chunk) => {
    pending += chunk.toString('utf8');
    let i = pending.indexOf('\n');
    while (i >= 0) {
      const line = pending.slice(0, i);
      pending = pending.slice(i + 1);
      if (line.trim()) appendFileSync(logFile, `${JSON.stringify({ at: new Date().toISOString(), pid: process.pid, dir, line })}\n`);
      i = pending.indexOf('\n');
    }
  };
};
const tin = tap('in');
const tout = tap('out');
process.stdin.on('data', (c) => {
  tin(c);
  child.stdin.write(c);
});
process.stdin.on('end', () => child.stdin.end());
child.stdout.on('data', (c) => {
  tout(c);
  process.stdout.write(c);
});
for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, sig) => process.exit(code ?? (sig ? 1 : 0)));
