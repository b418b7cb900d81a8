import { turn } from '../rpc/turn.js';
import type { TaskSecrets } from './tasks.js';
import { SecretDetector, type SecretFinding } from '../guard/secrets/detector.js';
import { INJECTED_RULE } from '../guard/secrets/injected.js';
import { type HostOut, LINK, META } from '../link/protocol.js';
import type { Log } from '../log/lite.js';
import type { ServerConfig, SecretsPolicy } from '../policy/model.js';
import { ERR, RpcFailure } from '../rpc/jsonrpc.js';

type Params = Record<string, unknown>;
export type SecretDirection = 'arguments' | 'answers';
export type SecretAction = 'blocked' | 'redacted' | 'logged';

/** What a server without a `secrets` policy gets (the build step fills it in from the domain's kind). */
const DEFAULT_POLICY: SecretsPolicy = { arguments: 'block', answers: 'block', ignore: [] };
/** The `_meta` key an answer carries when lanegate redacted it, and the error data key of a refusal. */
export const SECRETS_META = 'lanegate/secrets';

/** What of a request's param goes upstream: the lane's own _meta does; the front's caller block and the progress token (replaced) do not. */
const sentPart = (k: string, v: unknown): unknown => {
  if (k !== '_meta' || v === null || typeof v !== 'object') return v;
  // Without the keys themselves: "progressToken" holds a keyword of the secret rules and sent every call through them.
  const { [META.caller]: _caller, progressToken: _progress, ...sent } = v as Params;
  return sent;
};

/** A refusal of lanegate's own (never an upstream's error that happens to use the same code). */
export class SecretRefusal extends RpcFailure {}

const said = (findings: readonly SecretFinding[]): string => {
  const shown = findings.slice(0, 4).map((f) => `${f.rule} at ${f.path}`);
  return shown.join(', ') + (findings.length > shown.length ? ` and ${findings.length - shown.length} more` : '');
};

/**
 * Layer three of the guard, on the data path: a host scans what a lane sends an upstream and what
 * the upstream answers, and blocks, redacts or logs per `servers.X.secrets`. A value this host
 * injects is never let through whatever the policy says. Refusals and logs name the rule and the
 * path, never the value; every event is reported to the front (which counts it) over the link.
 */
export class SecretGate {
  private readonly detector: SecretDetector;
  /** By policy object: a reload that changes a server's policy gives it a new one. */
  private readonly ignores = new WeakMap<SecretsPolicy, ReadonlySet<string>>();

  constructor(
    injectedValues: Iterable<string>,
    private readonly out: HostOut,
    private readonly log: Log,
  ) {
    this.detector = new SecretDetector(injectedValues);
  }

  private policy(server: ServerConfig): { p: SecretsPolicy; ignore: ReadonlySet<string> } {
    const p = server.secrets ?? DEFAULT_POLICY;
    let ignore = this.ignores.get(p);
    if (!ignore) {
      ignore = new Set(p.ignore);
      this.ignores.set(p, ignore);
    }
    return { p, ignore };
  }

  /**
   * A lane's request (or its answer to an upstream's request) on its way up: throws when refused.
   * Its long strings are scanned a rule at a time with `pause` between passes (a large request):
   * then a promise; undefined (nothing to wait for) when it was judged at once, as nearly all are.
   */
  arguments(
    server: ServerConfig,
    lane: string,
    method: string,
    params: Params,
    pause: () => Promise<void> = turn,
  ): Promise<void> | undefined {
    const { ignore } = this.policy(server);
    const findings: SecretFinding[] = [];
    const pending: Promise<SecretFinding[]>[] = [];
    for (const k of Object.keys(params)) {
      if (k === 'name') continue;
      findings.push(...this.keyFindings(k, ignore));
      const found = this.detector.scanPaced(sentPart(k, params[k]), k, ignore, pause);
      if (Array.isArray(found)) findings.push(...found);
      else pending.push(found);
    }
    const judge = (): undefined => {
      if (findings.length > 0) this.refuseArguments(server, lane, method, findings);
      return undefined;
    };
    if (pending.length === 0) return judge();
    return Promise.all(pending).then((all) => {
      for (const f of all) findings.push(...f);
      judge();
    });
  }

  /** A secret in the name of a request's param itself (attack round 12: `{"ghp_…": 1}` beside `arguments` was not read). */
  private keyFindings(k: string, ignore: ReadonlySet<string>): SecretFinding[] {
    return [...new Set(this.detector.text(k, ignore).map((h) => h.rule))].map((rule) => ({ rule, path: 'params[<key holding a secret>]' }));
  }

  private refuseArguments(server: ServerConfig, lane: string, method: string, findings: SecretFinding[]): void {
    const { p } = this.policy(server);
    const injected = findings.some((f) => f.rule === INJECTED_RULE);
    const action: SecretAction = p.arguments === 'log' && !injected ? 'logged' : 'blocked';
    this.report(server.name, lane, method, 'arguments', action, findings);
    if (action === 'blocked')
      throw new SecretRefusal({
        code: ERR.secretRefused,
        message: `refused by lanegate: the request holds a secret (${said(findings)}); lanegate does not send secrets to upstream "${server.name}"`,
        data: { [SECRETS_META]: { direction: 'arguments', action, findings } },
      });
  }

  /**
   * An upstream's answer on its way to a lane: returned as is, redacted, or refused (throws). Its
   * long strings are scanned a rule at a time with `pause` between passes (a large answer): then a
   * promise; at once when it has none, as nearly every answer.
   */
  answer(
    server: ServerConfig,
    lane: string,
    method: string,
    result: Params,
    pause: () => Promise<void> = turn,
    root = 'result',
  ): Params | Promise<Params> {
    const found = this.detector.scanPaced(result, root, this.policy(server).ignore, pause);
    if (Array.isArray(found)) return found.length === 0 ? result : this.judgeAnswer(server, lane, method, result, found);
    return found.then(async (findings) => {
      if (findings.length === 0) return result;
      // Redacted, its long strings are read again a step at a time too (judgeAnswer would read them at once).
      if (this.answerAction(server, findings) !== 'redacted') return this.judgeAnswer(server, lane, method, result, findings);
      const redacted = (await this.detector.redactPaced(result, this.policy(server).ignore, pause)) as Params;
      return this.judgeAnswer(server, lane, method, result, findings, redacted);
    });
  }

  private answerAction(server: ServerConfig, findings: readonly SecretFinding[]): SecretAction {
    const { p } = this.policy(server);
    const injected = findings.some((f) => f.rule === INJECTED_RULE);
    return p.answers === 'redact' ? 'redacted' : p.answers === 'log' && !injected ? 'logged' : 'blocked';
  }

  /** What the lane gets of an answer with findings; `done`: its redaction, when already made. */
  private judgeAnswer(
    server: ServerConfig,
    lane: string,
    method: string,
    result: Params,
    findings: SecretFinding[],
    done?: Params,
  ): Params {
    const action = this.answerAction(server, findings);
    this.report(server.name, lane, method, 'answers', action, findings);
    if (action === 'logged') return result;
    if (action === 'blocked')
      throw new SecretRefusal({
        code: ERR.secretRefused,
        message: `lanegate withheld the answer of upstream "${server.name}": it holds a secret (${said(findings)}); see servers.${server.name}.secrets.answers`,
        data: { [SECRETS_META]: { direction: 'answers', action, findings } },
      });
    const redacted = done ?? (this.detector.redact(result, this.policy(server).ignore) as Params);
    const note = `[lanegate redacted ${findings.length === 1 ? 'a secret' : 'secrets'} from this answer: ${said(findings)}]`;
    if (method === 'tools/call' && Array.isArray(redacted.content)) redacted.content = [...redacted.content, { type: 'text', text: note }];
    const meta = redacted._meta !== null && typeof redacted._meta === 'object' ? (redacted._meta as Params) : {};
    redacted._meta = { ...meta, [SECRETS_META]: { direction: 'answers', action, findings, note } };
    return redacted;
  }

  /**
   * A child's notification to one lane (progress, a log line): its params, redacted, or undefined to
   * drop it; a promise of that when it holds long text, read a step at a time as an answer's is.
   */
  notice(
    server: ServerConfig,
    lane: string,
    method: string,
    params: Params,
    pause: () => Promise<void>,
  ): Params | undefined | Promise<Params | undefined> {
    const dropRefused = (e: unknown): undefined => {
      if (e instanceof SecretRefusal) return undefined;
      throw e;
    };
    try {
      const seen = this.answer(server, lane, method, params, pause, 'notification');
      return seen instanceof Promise ? seen.catch(dropRefused) : seen;
    } catch (e) {
      return dropRefused(e);
    }
  }

  /**
   * An upstream's error on its way to the lane (its message and data are the upstream's text too).
   * Throws the refusal, or the redacted error, in its place; returns when it may pass as it is.
   * Long text in it is read a step at a time, `pause` between steps, as an answer's is.
   */
  async failure(server: ServerConfig, lane: string, method: string, e: unknown, pause: () => Promise<void>): Promise<void> {
    if (!(e instanceof RpcFailure) || e instanceof SecretRefusal) return;
    const { message, data } = e.rpc;
    const redacted = await this.answer(server, lane, method, { message, ...(data !== undefined ? { data } : {}) }, pause, 'error');
    if (redacted.message !== message || redacted.data !== data)
      throw new RpcFailure({
        code: e.rpc.code,
        message: String(redacted.message),
        ...(redacted.data !== undefined ? { data: redacted.data } : {}),
      });
  }

  private report(
    server: string,
    lane: string,
    method: string,
    direction: SecretDirection,
    action: SecretAction,
    findings: SecretFinding[],
  ): void {
    this.log.warn(
      { event: `secret_${action}`, server, lane, method, direction, findings },
      `secret ${action} (${direction}) for "${server}": ${said(findings)}`,
    );
    const rules = [...new Set(findings.map((f) => f.rule))];
    this.out.notify(LINK.secret, { server, lane, direction, action, rules });
  }
}

/** A task's traffic crosses the gate as a call's does; its result can be as large as an answer: read a step at a time. */
export const taskSecrets = (gate: SecretGate): TaskSecrets => ({
  answer: (slot, lane, result) => gate.answer(slot.config, lane, 'tools/call', result, turn),
  failure: (slot, lane, err) => gate.failure(slot.config, lane, 'tools/call', err, turn),
  input: async (slot, lane, method, params) => gate.arguments(slot.config, lane, method, params, turn),
});
