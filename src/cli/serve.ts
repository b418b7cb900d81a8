import { spawn } from 'node:child_process';
import { keyRetirements, keysDir, loadPublicKeys } from '../auth/keys.js';
import { Gateway } from '../front/gateway.js';
import { ensureOperatorToken, OPERATOR_TOKEN_FILE } from '../front/operator/operator.js';
import { createLogger } from '../log/logger.js';
import { initAndLoad } from './init-step.js';
import { reportLoad, reportWarnings } from './load-report.js';
import path from 'node:path';
import { CONFIG_FORMATS } from './lane-config.js';
import { commandName } from './find-policy.js';
import { ENTRIES } from '../install-paths.js';
import { StateWatch } from '../front/operator/state-watch.js';

export interface ServeArgs {
  policy: string;
  port?: number;
  demo: boolean;
  printLaneConfigs: boolean;
  /** Reload by itself when the policy file changes (policy-watch.ts). */
  watch?: boolean;
}

/** Runs a CLI step in its own process (keys, secrets and tokens never enter the front). */
const step = (args: string[]): Promise<number> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [ENTRIES.cli, ...args], { stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('error', () => resolve(1));
    child.once('exit', (code) => resolve(code ?? 1));
  });

export const runServe = async (a: ServeArgs): Promise<number> => {
  // The state prepared and the policy validated in one child process: the front never holds a key,
  // a secret, the schema library or the YAML parser.
  const loaded = await initAndLoad(a.policy, a.demo);
  if (!loaded) return 1;
  const policy = reportLoad(loaded, a.policy);
  if (!policy) return 1;
  reportWarnings(loaded);
  const log = createLogger('front');
  const keys = await loadPublicKeys(policy.gateway.stateDir);
  const op = ensureOperatorToken(policy.gateway.stateDir);
  const gw = new Gateway({ policy, publicKeys: keys, operatorHash: op.hash, log, ...(a.port !== undefined ? { port: a.port } : {}) });
  gw.auth.setKeys(keys, keyRetirements(policy.gateway.stateDir));
  // token revoke and key rotate reach this process within a second, with no reload.
  const watch = new StateWatch(gw, log);
  await watch.start();
  const url = await gw.listen();
  op.persist();
  const out = process.stdout;
  out.write(`\nlanegate is serving ${url}\n`);
  out.write(
    `  policy ${a.policy}: ${Object.keys(policy.domains).length} trust domains, ${Object.keys(policy.servers).length} servers, ${Object.keys(policy.lanes).length} lanes\n`,
  );
  const origin = url.replace(/\/mcp$/, '');
  const tokenFile = path.join(keysDir(policy.gateway.stateDir), OPERATOR_TOKEN_FILE);
  out.write(`  health: ${origin}/healthz   state: ${policy.gateway.stateDir}\n`);
  out.write(`  dashboard: ${origin}/dashboard (sign in with the operator token)\n`);
  // On every start, not only the first: the token is in its file (0600), printed once when made.
  if (op.created) out.write(`  operator token (for /metrics, /api, /dashboard; also in ${tokenFile}, 0600): ${op.created}\n`);
  else out.write(`  operator token (for /metrics, /api, /dashboard): in ${tokenFile} (0600)\n`);
  out.write(`  a client's config: ${commandName()} token issue --lane LANE --format ${CONFIG_FORMATS.join('|')}\n`);
  // Every lane's config from ONE process (the only one that reads the private signing key).
  if (a.printLaneConfigs && Object.values(policy.lanes).some((l) => l.enabled)) {
    out.write('\n');
    await step(['token', 'issue', '--policy', a.policy, '--all', '--url', url, '--ttl', '30d']);
  }
  const watching = a.watch ? (await import('../front/operator/policy-watch.js')).watchPolicy(a.policy, () => gw.reload(), log) : undefined;
  out.write(
    watching
      ? `\nCtrl-C stops the gateway and every process it started; edits to ${a.policy} reload by themselves (--watch).\n`
      : `\nCtrl-C stops the gateway and every process it started; kill -HUP ${process.pid} (or lanegate reload) re-reads the policy.\n`,
  );
  let stopping = false;
  const stop = (sig: string): void => {
    if (stopping) return;
    stopping = true;
    log.info({ event: 'front_stopping', signal: sig }, 'stopping');
    watching?.close();
    watch.stop();
    void gw.close().then(() => process.exit(0));
    setTimeout(() => process.exit(0), 12_000).unref();
  };
  process.on('SIGHUP', () => {
    // A refused reload is logged by the gateway (event reload_refused, with its problems).
    void gw.reload();
  });
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  return new Promise<number>(() => undefined);
};
