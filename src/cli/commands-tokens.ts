import type { Command } from 'commander';
import { Option } from 'commander';
import { done, example, policyOf, policyOption, urlOption } from './command-kit.js';
import { CONFIG_FORMATS, type ConfigFormat } from './lane-config.js';

type IssueOptions = { lane?: string; all?: boolean; ttl: string; format: ConfigFormat; url?: string; quiet?: boolean; policy?: string };

/** `token issue`: one lane's token and config, or every enabled lane's (as npm start prints them). */
const issueTokens = async (o: IssueOptions, cmd: Command): Promise<void> => {
  if ((o.lane === undefined) === (o.all !== true)) cmd.error('error: token issue needs --lane <lane> or --all (one of them)');
  const policy = await policyOf(o.policy);
  if (!policy) return;
  const { runTokenIssue } = await import('./token.js');
  const lanes = o.all
    ? Object.values(policy.lanes)
        .filter((l) => l.enabled)
        .map((l) => l.name)
    : [o.lane ?? ''];
  let code = 0;
  for (const [n, lane] of lanes.entries()) {
    if (n > 0 && !o.quiet) process.stdout.write('\n');
    code = Math.max(
      code,
      await runTokenIssue(policy, { lane, ttl: o.ttl, format: o.format, ...(o.url ? { url: o.url } : {}), quiet: o.quiet ?? false }),
    );
  }
  done(code);
};

const registerTokenIssue = (token: Command): void => {
  token
    .command('issue')
    .description('issue a lane token and print a ready-to-paste client config')
    .option('--lane <lane>', 'the lane the token admits')
    .option('--all', 'one token and config for every enabled lane (as npm start prints them)')
    .option('--ttl <duration>', 'lifetime: 90s, 15m, 12h, 30d, 2w', '30d')
    .addOption(new Option('--format <format>', 'the client whose config is printed').choices([...CONFIG_FORMATS]).default('json'))
    .addOption(urlOption())
    .option('--quiet', 'print the token alone')
    .addOption(policyOption())
    .addHelpText(
      'after',
      example(
        'lanegate token issue --lane research --format vscode',
        'lanegate token issue --lane ci --ttl 12h --quiet',
        'lanegate token issue --all',
      ),
    )
    .action(issueTokens);
};

/** `token list` and `token revoke`: the records of issued tokens (never a token itself). */
const registerTokenRecords = (token: Command): void => {
  token
    .command('list')
    .description('the issued lane tokens: id, lane, issued, expires, revoked (never a token itself)')
    .option('--lane <lane>', 'one lane only')
    .option('--json', 'machine-readable')
    .addOption(policyOption())
    .addHelpText('after', example('lanegate token list', 'lanegate token list --lane research --json'))
    .action(async (o: { lane?: string; json?: boolean; policy?: string }) => {
      const policy = await policyOf(o.policy);
      if (policy) done((await import('./token-records-cli.js')).runTokenList(policy, o.lane, o.json ?? false));
    });
  token
    .command('revoke')
    .description('revoke one token by id, or every token of a lane; a running gateway applies it within a second')
    .argument('[id]', 'a token id (lanegate token list shows them)')
    .option('--lane <lane>', 'every token of this lane issued until now (new ones work)')
    .addOption(policyOption())
    .addHelpText('after', example('lanegate token revoke 3f0c…', 'lanegate token revoke --lane research'))
    .action(async (id: string | undefined, o: { lane?: string; policy?: string }, cmd: Command) => {
      if ((id === undefined) === (o.lane === undefined)) cmd.error('error: token revoke needs a token id or --lane <lane> (one of them)');
      const policy = await policyOf(o.policy);
      if (policy) done((await import('./token-records-cli.js')).runTokenRevoke(policy, id, o.lane));
    });
};

/** `key list` and `key rotate`: the lane-token signing keys. */
const registerKeyCommands = (program: Command): void => {
  const key = program.command('key').description('lane-token signing keys');
  key
    .command('list')
    .description('the signing keys: when each was made, until when a retired one is accepted')
    .option('--json', 'machine-readable')
    .addOption(policyOption())
    .addHelpText('after', example('lanegate key list'))
    .action(async (o: { json?: boolean; policy?: string }) => {
      const policy = await policyOf(o.policy);
      if (policy) done((await import('./key.js')).runKeyList(policy, o.json ?? false));
    });
  key
    .command('rotate')
    .description('a new signing key; older keys stay accepted until the date it prints')
    .option('--keep-old <duration>', 'how long tokens of older keys stay accepted', '7d')
    .option('--json', 'machine-readable')
    .addOption(policyOption())
    .addHelpText('after', example('lanegate key rotate --keep-old 30d'))
    .action(async (o: { keepOld: string; json?: boolean; policy?: string }) => {
      const policy = await policyOf(o.policy);
      if (policy) done(await (await import('./key.js')).runKeyRotate(policy, o.keepOld, o.json ?? false));
    });
};

/** `lanegate token …` and `lanegate key …`: lane tokens and their signing keys. */
export const registerTokenCommands = (program: Command): void => {
  const token = program.command('token').description('lane tokens');
  registerTokenIssue(token);
  registerTokenRecords(token);
  registerKeyCommands(program);
};
