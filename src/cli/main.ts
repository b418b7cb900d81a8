#!/usr/bin/env node
import { VERSION } from '../install-paths.js';
import { Command, CommanderError, Option } from 'commander';
import { isLanegateError } from '../errors.js';
import { DEFAULT_POLICY_PATHS, findPolicy } from './find-policy.js';
import { done, example, exitCodeOf, policyOf, policyOption, urlOption } from './command-kit.js';
import { registerTokenCommands } from './commands-tokens.js';

/**
 * The lanegate CLI, on commander: every command has its own --help (options and an example), the
 * version comes from package.json, and exit codes mean one thing each: 0 success, 1 failure, 2 a
 * usage error (an unknown command or option, a missing argument), with the nearest valid command
 * suggested. A command's code is loaded only when that command runs.
 */

const program = new Command('lanegate')
  .description('One MCP URL per host: servers share a process only when measured stateless and in the same trust domain.')
  .version(VERSION, '-V, --version', 'print the version')
  .exitOverride()
  .showSuggestionAfterError(true)
  .addHelpText(
    'after',
    `\nThe policy is --policy FILE, else $LANEGATE_POLICY, else the first of ${DEFAULT_POLICY_PATHS.map((p) => `./${p}`).join(', ')} that exists.\n\`lanegate <command> --help\` shows each command.\n`,
  );

program
  .command('serve')
  .description('run the gateway: the front, its hosts, and every upstream they start')
  .addOption(policyOption())
  .option('--port <n>', "listen on this port instead of the policy's (0: any free port)")
  .option('--demo', 'create demo secrets for the embedded default policy')
  .option('--no-lane-configs', 'do not print ready-to-paste lane configs (they hold bearer tokens)')
  .option('--watch', 'reload by itself when the policy file changes (a ConfigMap swap included); a policy that fails check is refused')
  .addOption(
    new Option('--log-level <level>', 'trace, debug, info, warn, error or fatal (default: $LANEGATE_LOG_LEVEL or info)').choices([
      'trace',
      'debug',
      'info',
      'warn',
      'error',
      'fatal',
    ]),
  )
  .addHelpText(
    'after',
    example('lanegate serve --policy /etc/lanegate/policy.yaml --no-lane-configs --watch', 'lanegate serve --log-level debug'),
  )
  .action(async (o: { policy?: string; port?: string; demo?: boolean; laneConfigs: boolean; logLevel?: string; watch?: boolean }) => {
    // Before any logger exists; hosts inherit it through their environment.
    if (o.logLevel) process.env.LANEGATE_LOG_LEVEL = o.logLevel;
    const { runServe } = await import('./serve.js');
    done(
      await runServe({
        policy: findPolicy(o.policy),
        ...(o.port !== undefined ? { port: Number(o.port) } : {}),
        demo: o.demo ?? false,
        printLaneConfigs: o.laneConfigs,
        watch: o.watch ?? false,
      }),
    );
  });

program
  .command('check')
  .description('validate a policy (every problem at once, as file:line:col) and the records beside it; exit 1 on any')
  .option('--launch', 'also start each server once: initialize it, list its surface, stop it')
  .addOption(policyOption())
  .addHelpText('after', example('lanegate check', 'lanegate check --launch --policy policies/default.yaml'))
  .action(async (o: { policy?: string; launch?: boolean }) =>
    done(await (await import('./check.js')).runCheck(findPolicy(o.policy), o.launch ?? false)),
  );

registerTokenCommands(program);

program
  .command('init')
  .description('write a commented starter policy (DIR/lanegate.yaml), its state directory and signing key; never overwrites')
  .argument('[dir]', 'where to write lanegate.yaml (default: the current directory)')
  .addOption(policyOption().makeOptionMandatory(false))
  .option('--demo-secrets', 'with --policy: write demo secret files for that policy')
  // serve's own: the policy's load result is written on this descriptor once the state is ready.
  .addOption(new Option('--load-result-fd <fd>').argParser(Number).hideHelp())
  .addHelpText(
    'after',
    example(
      'lanegate init',
      'lanegate init my-gateway',
      'lanegate init --policy policies/default.yaml --demo-secrets   # state of an existing policy',
    ),
  )
  .action(async (dir: string | undefined, o: { policy?: string; demoSecrets?: boolean; loadResultFd?: number }, cmd: Command) => {
    const init = await import('./init.js');
    if (o.policy === undefined) {
      if (o.demoSecrets) cmd.error('error: --demo-secrets goes with --policy FILE (the policy whose secrets it writes)');
      return done(await init.runInitDir(dir ?? '.'));
    }
    if (dir !== undefined) cmd.error('error: init takes a directory (for a new policy) or --policy FILE (an existing one), not both');
    done(await init.runInit(o.policy, o.demoSecrets ?? false, o.loadResultFd));
  });

program
  .command('schema')
  .description("print the policy's JSON Schema (editors complete and check policies with it)")
  .addHelpText('after', example('lanegate schema > policies/policy.schema.json'))
  .action(async () => {
    const { policyJsonSchema } = await import('../policy/json-schema.js');
    process.stdout.write(`${JSON.stringify(policyJsonSchema(), null, 2)}\n`);
  });

program
  .command('scan')
  .description('vet a tools/list result with the guard; exit 1 if any tool is refused')
  .argument('[file]', 'a tools/list result as JSON; - or nothing reads standard input')
  .option('--explain', 'print, per tool, every signal the guard saw with its weight, the score and the threshold')
  .addHelpText('after', example('lanegate scan tools.json', 'lanegate scan --explain tools.json', 'curl … | lanegate scan -'))
  .action(async (file: string | undefined, o: { explain?: boolean }) =>
    done((await import('./guard.js')).runScan(file, o.explain ?? false)),
  );

program
  .command('review')
  .description('why each server shares a process or runs dedicated; live lanes and escalations from a running gateway')
  .option('--json', 'machine-readable')
  .addOption(urlOption())
  .addOption(policyOption())
  .addHelpText('after', example('lanegate review', 'lanegate review --json | jq ".servers[] | {server, placement, scope}"'))
  .action(async (o: { json?: boolean; url?: string; policy?: string }) => {
    const policy = await policyOf(o.policy);
    if (policy) done(await (await import('./review.js')).runReview(policy, o.json ?? false, o.url));
  });

program
  .command('status')
  .description(
    'the running gateway: servers, placements and evidence scope, lanes and sessions, hosts and children (pid, RSS), hazards, refusals',
  )
  .option('--json', 'machine-readable')
  .addOption(urlOption())
  .addOption(policyOption())
  .addHelpText('after', example('lanegate status', 'lanegate status --json | jq .hosts'))
  .action(async (o: { json?: boolean; url?: string; policy?: string }) => {
    const policy = await policyOf(o.policy);
    if (policy) done(await (await import('./status.js')).runStatus(policy, o.json ?? false, o.url));
  });

program
  .command('measure')
  .description('run a pre-flight and demonstration pass on the running gateway (placements change at the next host start)')
  .option('--json', 'machine-readable: the final progress, no bar')
  .addOption(urlOption())
  .addOption(policyOption())
  .addHelpText('after', example('lanegate measure && lanegate review'))
  .action(async (o: { url?: string; json?: boolean; policy?: string }) => {
    const policy = await policyOf(o.policy);
    if (policy) done(await (await import('./measure.js')).runMeasure(policy, o.url, o.json ?? false));
  });

program
  .command('audit')
  .description('the audit trail: one record per lane request that reached an upstream (never arguments or results)')
  .option('--lane <lane>', 'only this lane')
  .option('--server <server>', 'only this server')
  .option('--since <when>', 'only records since: a duration back from now (15m, 1h, 2d) or an ISO 8601 time')
  .option('--json', 'machine-readable')
  .addOption(policyOption())
  .addHelpText('after', example('lanegate audit --lane research --since 1h', 'lanegate audit --server memory --json | jq ".records[]"'))
  .action(async (o: { lane?: string; server?: string; since?: string; json?: boolean; policy?: string }) => {
    const policy = await policyOf(o.policy);
    if (policy) done((await import('./audit.js')).runAudit(policy, { ...o, json: o.json ?? false }));
  });

program
  .command('reload')
  .description('make the running gateway re-read its policy and keys (as SIGHUP does)')
  .option('--json', 'machine-readable')
  .addOption(urlOption())
  .addOption(policyOption())
  .addHelpText('after', example('lanegate reload', 'lanegate reload --json'))
  .action(async (o: { url?: string; json?: boolean; policy?: string }) => {
    const policy = await policyOf(o.policy);
    if (policy) done(await (await import('./reload.js')).runReload(policy, o.url, o.json ?? false));
  });

program
  .command('draft-probe')
  .description("propose a probe from a server's read-only tools, for review before it goes in the policy")
  .argument('<server>', 'a server of the policy')
  .option('--write', 'insert it under servers.<server> in the policy file (comments and layout kept)')
  .addOption(policyOption())
  .addHelpText('after', example('lanegate draft-probe everything', 'lanegate draft-probe memory --write'))
  .action(async (server: string, o: { policy?: string; write?: boolean }) => {
    const policy = await policyOf(o.policy);
    if (policy) done((await import('./draft-probe.js')).runDraftProbe(policy, server, o.write ?? false));
  });

program
  .command('inspect')
  .description("what the guard found in a server's surface, and why it was admitted or refused")
  .argument('<server>', 'a server of the policy')
  .option('--tool <tool>', 'one tool only')
  .addOption(policyOption())
  .addHelpText('after', example('lanegate inspect bad --tool echo'))
  .action(async (server: string, o: { tool?: string; policy?: string }) => {
    const policy = await policyOf(o.policy);
    if (policy) done((await import('./guard.js')).runInspect(policy, server, o.tool));
  });

program
  .command('trust')
  .description("override the guard's findings for one item, pinned to its exact surface (a change re-opens them)")
  .argument('<server>', 'a server of the policy')
  .option('--tool <tool>', 'one tool only')
  .requiredOption('--reviewed-by <who>', 'who reviewed it: an override is a decision with a name on it')
  .option('--note <text>', 'why')
  .addOption(policyOption())
  .addHelpText('after', example('lanegate trust docs --tool search --reviewed-by alice --note "the IMPORTANT block is a usage hint"'))
  .action(async (server: string, o: { tool?: string; reviewedBy: string; note?: string; policy?: string }) => {
    const policy = await policyOf(o.policy);
    if (policy) done((await import('./guard.js')).runTrust(policy, server, o.tool, o.reviewedBy, o.note));
  });

const run = async (argv: string[]): Promise<number> => {
  if (argv.length === 0) {
    program.outputHelp();
    return 0;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCodeOf();
  } catch (e) {
    // --help and --version end with 0; every other commander error is a usage error.
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    const msg = isLanegateError(e) ? `lanegate: ${e.detail} (${e.code})` : `lanegate: ${e instanceof Error ? e.message : String(e)}`;
    process.stderr.write(`${msg}\n`);
    return 1;
  }
};

run(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
