#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { isLanegateError } from '../errors.js';
import { runCheck, loadOrReport } from './check.js';
import { runInit } from './init.js';
import { runServe } from './serve.js';
import { runTokenIssue } from './token.js';
import type { ConfigFormat } from './lane-config.js';

const USAGE = `lanegate: one MCP URL per host; servers share a process only when it is safe

usage:
  lanegate serve  [--policy F] [--port N] [--demo] [--no-lane-configs]
  lanegate check  [--policy F]
  lanegate token issue --lane L [--ttl 30d] [--format json|claude|codex] [--url U] [--quiet] [--policy F]
  lanegate key list [--json] [--policy F]             (signing keys: created, accepted until)
  lanegate key rotate [--keep-old 7d] [--policy F]   (new signing key; older ones accepted until a date it prints)
  lanegate init   [--policy F] [--demo-secrets]
  lanegate schema              (prints the policy JSON Schema)
  lanegate scan   [FILE|-]     (vets a tools/list result; exit 1 if any tool is refused)
  lanegate review [--json] [--url U] [--policy F]  (why each server shares; live lanes and escalations from a running gateway)
  lanegate measure [--url U] [--policy F]    (pre-flight + demonstration pass on the running gateway)
  lanegate draft-probe SERVER [--policy F]   (proposes a probe from read-only tools, for review)
  lanegate reload [--url U] [--policy F]     (re-reads the policy of the running gateway; or send SIGHUP)
  lanegate inspect SERVER [--tool T] [--policy F]
  lanegate trust  SERVER [--tool T] --reviewed-by WHO [--note N] [--policy F]

The policy defaults to $LANEGATE_POLICY or ./lanegate.yaml.
`;

const main = async (argv: string[]): Promise<number> => {
  const [cmd, ...rest] = argv;
  const defaultPolicy = process.env.LANEGATE_POLICY ?? 'lanegate.yaml';
  switch (cmd) {
    case 'host': {
      const { runHost } = await import('../host/main.js');
      await runHost();
      return new Promise<number>(() => undefined);
    }
    case 'schema': {
      const { policyJsonSchema } = await import('../policy/json-schema.js');
      process.stdout.write(`${JSON.stringify(policyJsonSchema(), null, 2)}\n`);
      return 0;
    }
    case 'check': {
      const { values } = parseArgs({ args: rest, options: { policy: { type: 'string', short: 'p' } } });
      return runCheck(values.policy ?? defaultPolicy);
    }
    case 'init': {
      const { values } = parseArgs({
        args: rest,
        options: { policy: { type: 'string', short: 'p' }, 'demo-secrets': { type: 'boolean' } },
      });
      return runInit(values.policy ?? defaultPolicy, values['demo-secrets'] ?? false);
    }
    case 'serve': {
      const { values } = parseArgs({
        args: rest,
        options: {
          policy: { type: 'string', short: 'p' },
          port: { type: 'string' },
          demo: { type: 'boolean' },
          'no-lane-configs': { type: 'boolean' },
        },
      });
      return runServe({
        policy: values.policy ?? defaultPolicy,
        ...(values.port !== undefined ? { port: Number(values.port) } : {}),
        demo: values.demo ?? false,
        printLaneConfigs: !(values['no-lane-configs'] ?? false),
      });
    }
    case 'review':
    case 'reload':
    case 'measure':
    case 'draft-probe': {
      const { values, positionals } = parseArgs({
        args: rest,
        allowPositionals: true,
        options: { policy: { type: 'string', short: 'p' }, json: { type: 'boolean' }, url: { type: 'string' } },
      });
      const policy = loadOrReport(values.policy ?? defaultPolicy);
      if (!policy) return 1;
      if (cmd === 'review') return (await import('./review.js')).runReview(policy, values.json ?? false, values.url);
      if (cmd === 'measure') return (await import('./measure.js')).runMeasure(policy, values.url);
      if (cmd === 'reload') return (await import('./reload.js')).runReload(policy, values.url);
      const server = positionals[0];
      if (!server) {
        process.stderr.write('draft-probe needs a SERVER\n');
        return 2;
      }
      return (await import('./draft-probe.js')).runDraftProbe(policy, server);
    }
    case 'scan': {
      const { runScan } = await import('./guard.js');
      return runScan(rest[0]);
    }
    case 'trust':
    case 'inspect': {
      const { values, positionals } = parseArgs({
        args: rest,
        allowPositionals: true,
        options: {
          policy: { type: 'string', short: 'p' },
          tool: { type: 'string' },
          'reviewed-by': { type: 'string' },
          note: { type: 'string' },
        },
      });
      const server = positionals[0];
      if (!server) {
        process.stderr.write(`${cmd} needs a SERVER\n`);
        return 2;
      }
      const policy = loadOrReport(values.policy ?? defaultPolicy);
      if (!policy) return 1;
      const g = await import('./guard.js');
      if (cmd === 'inspect') return g.runInspect(policy, server, values.tool);
      if (!values['reviewed-by']) {
        process.stderr.write('trust needs --reviewed-by WHO: an override is a reviewed decision with a name on it\n');
        return 2;
      }
      return g.runTrust(policy, server, values.tool, values['reviewed-by'], values.note);
    }
    case 'key': {
      const [sub, ...args] = rest;
      if (sub !== 'list' && sub !== 'rotate') break;
      const { values } = parseArgs({
        args,
        options: { policy: { type: 'string', short: 'p' }, json: { type: 'boolean' }, 'keep-old': { type: 'string' } },
      });
      const policy = loadOrReport(values.policy ?? defaultPolicy);
      if (!policy) return 1;
      const k = await import('./key.js');
      return sub === 'list' ? k.runKeyList(policy, values.json ?? false) : k.runKeyRotate(policy, values['keep-old'] ?? '7d');
    }
    case 'token': {
      const [sub, ...args] = rest;
      if (sub !== 'issue') break;
      const { values } = parseArgs({
        args,
        options: {
          policy: { type: 'string', short: 'p' },
          lane: { type: 'string' },
          ttl: { type: 'string' },
          url: { type: 'string' },
          format: { type: 'string' },
          quiet: { type: 'boolean' },
        },
      });
      if (!values.lane) {
        process.stderr.write('token issue needs --lane\n');
        return 2;
      }
      const format = (values.format ?? 'json') as ConfigFormat;
      if (!['json', 'claude', 'codex'].includes(format)) {
        process.stderr.write('--format must be json, claude or codex\n');
        return 2;
      }
      const policy = loadOrReport(values.policy ?? defaultPolicy);
      if (!policy) return 1;
      return runTokenIssue(policy, {
        lane: values.lane,
        ttl: values.ttl ?? '30d',
        format,
        ...(values.url ? { url: values.url } : {}),
        quiet: values.quiet ?? false,
      });
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return 0;
  }
  process.stderr.write(`unknown command: ${argv.join(' ')}\n\n${USAGE}`);
  return 2;
};

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    const msg = isLanegateError(e) ? `lanegate: ${e.detail} (${e.code})` : `lanegate: ${e instanceof Error ? e.message : String(e)}`;
    process.stderr.write(`${msg}\n`);
    process.exitCode = 1;
  },
);
