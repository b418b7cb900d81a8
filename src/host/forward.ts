import { ERR, RpcFailure } from '../rpc/jsonrpc.js';
import type { Surface } from '../guard/scanner.js';
import type { Era, UpstreamConn } from '../upstream/conn.js';
import { withVia } from '../link/via.js';
import { turn } from '../rpc/turn.js';
import { admitCall, type GateDeps } from './call-gate.js';
import type { ProgressTokens } from './progress-tokens.js';
import type { Promotions } from './promotion.js';
import type { ResourceRelay } from './resource-relay.js';
import type { SecretGate } from './secret-gate.js';
import type { ServerSlot } from './slot.js';
import { prefixResultUris } from './surface.js';
import type { HostTasks } from './tasks.js';
import type { TripwireWatch } from './tripwire-watch.js';
import { upstreamParams } from './upstream-params.js';
import type { AnswerBytes } from './answer-bytes.js';
import { type AnswerTurns, callKey } from './answer-turns.js';
import { answerSize } from '../rpc/answer-size.js';
import { answersHeld } from '../rpc/too-large.js';

type Params = Record<string, unknown>;

/** What the host's parts a forwarded call goes through (host.ts builds it once). */
export interface ForwardDeps {
  /** The upstream a prefix names, if any. */
  byPrefix: (prefix: string) => ServerSlot | undefined;
  /** The servers in a lane's loadout, as currently configured. */
  serversOf: (lane: string) => readonly string[];
  refreshTrust: () => void;
  vettedSurface: (slot: ServerSlot, lane: string, era: Era) => Promise<Surface>;
  gate: GateDeps;
  secrets: SecretGate;
  promotions: Promotions;
  resources: ResourceRelay;
  tasks: HostTasks;
  progress: ProgressTokens;
  tripwire: TripwireWatch;
  /** A lane's answers held here until handed to the front (answer-bytes.ts). */
  answers: AnswerBytes;
  /** A lane's calls weighed by what they answered last (answer-turns.ts). */
  turns: AnswerTurns;
}

/** One lane request for an upstream, as the host read it from the link. */
export interface Forwarded {
  lane: string;
  era: Era;
  holder: string;
  method: string;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/**
 * A paced secret scan's outcome, a turn after it: a large message's last scan pass and the
 * serialisation that follows it are steps of their own (turn.ts).
 */
const paced = async <T>(scan: Promise<T>): Promise<T> => {
  const r = await scan;
  await turn();
  return r;
};

/** An answer taken into the lane's hold here (answer-bytes.ts), or refused naming the setting, logged at warn. */
const holdAnswer = (d: ForwardDeps, slot: ServerSlot, lane: string, bytes: number): { release: () => void } => {
  const h = d.answers.hold(lane, bytes);
  if (h.ok) return h;
  const server = slot.config.name;
  d.gate.log.warn({ event: 'answer_refused', lane, server, bytes, held: h.held, limit: h.setting }, `answer refused: over ${h.setting}`);
  throw new RpcFailure(answersHeld(server, bytes, h.held, h.setting, h.limit));
};

/** A plain answer on its way back: held here (answer-bytes.ts) while the tripwire and the secret scan read it. */
const checkedAnswer = async (
  d: ForwardDeps,
  a: { slot: ServerSlot; lane: string; method: string; asked: Params; wire: Wire; conn: UpstreamConn; key: string },
  result: Params,
): Promise<Params> => {
  const { slot, lane, method, conn } = a;
  // What this call answers is what its next one is expected to (answer-turns.ts).
  const bytes = answerSize(result);
  d.turns.note(a.key, bytes);
  // A lane's burst of large answers is not all in this host at once.
  const held = holdAnswer(d, slot, lane, bytes);
  try {
    const checked = a.wire ? await d.tripwire.checked(a.wire, slot, lane, method, a.asked, result) : result;
    // Where it ran, for the front's audit record (cut off before the lane sees the result).
    const via = { placement: slot.sharedFor(lane) ? 'shared' : 'dedicated', ...(conn.pid ? { pid: conn.pid } : {}) } as const;
    const judged = d.secrets.answer(slot.config, lane, method, checked, turn);
    const seen = judged instanceof Promise ? await paced(judged) : judged;
    return withVia(prefixResultUris(method, slot.config.prefix, seen), via);
  } finally {
    held.release();
  }
};

type Wire = ReturnType<TripwireWatch['sent']>;

/**
 * A lane's request to one of its upstreams, from the catalog check to the answer the lane gets:
 * secrets checked before admission (a refused request starts no child and moves no lane), the
 * call admitted, subscriptions and tasks recorded as the lane's, the answer checked on its way back.
 */
export const forward = async (
  d: ForwardDeps,
  { lane, era, holder, method, signal, headers }: Forwarded,
  prefix: string | undefined,
  params: Params,
): Promise<Params> => {
  const slot = prefix === undefined ? undefined : d.byPrefix(prefix);
  if (!slot || !d.serversOf(lane).includes(slot.config.name)) {
    throw new RpcFailure({ code: ERR.notInCatalog, message: "not in this lane's catalog" });
  }
  d.refreshTrust();
  // Before admission: a request refused for a secret starts no child and moves no lane.
  // A long string is scanned a rule at a time, other lanes' messages handled between the passes.
  const scanning = d.secrets.arguments(slot.config, lane, method, params, turn);
  if (scanning) {
    await paced(scanning);
    // The scan yielded: a reload may have taken the server from the lane (or replaced its slot) meanwhile.
    if (d.byPrefix(prefix as string) !== slot || !d.serversOf(lane).includes(slot.config.name))
      throw new RpcFailure({ code: ERR.notInCatalog, message: "not in this lane's catalog" });
  }
  const conn = await admitCall(d.gate, slot, { lane, era, method, ...(headers ? { headers } : {}) }, params);
  // What a lane asks its own child decides whether it may move at a promotion (only a probed server can be promoted).
  if (slot.config.probe?.length && (slot.placement === 'dedicated' || slot.waiting.has(lane)))
    d.promotions.noteOwn(slot.config.name, lane, method, params);
  slot.attach(lane, era);
  if (method === 'resources/subscribe' || method === 'resources/unsubscribe') {
    const on = method === 'resources/subscribe';
    await d.resources.change(slot.config.name, slot.keyFor(lane, era), conn, String(params.uri ?? ''), { lane, holder }, on);
    return {};
  }
  const meta = params._meta as Params | undefined;
  // A task-augmented call: the task is recorded as this lane's and session's, under an id of ours.
  const who = { lane, holder, era };
  const call = await d.tasks.asTask(slot, conn, () => d.vettedSurface(slot, lane, era).catch(() => undefined), who, method, params);
  const tracked = d.progress.track(lane, meta?.progressToken, slot.keyFor(lane, era));
  const sent = tracked !== undefined ? { ...call.params, _meta: { ...meta, progressToken: tracked } } : call.params;
  const wire = d.tripwire.sent(slot, lane, conn, call.params);
  let answered = false;
  const key = callKey(lane, slot.config.name, method, params);
  let turnEnds: (() => void) | undefined;
  try {
    const waited = d.turns.take(lane, key, signal); // answered large last time: waits its turn (answer-turns.ts)
    turnEnds = typeof waited === 'function' ? waited : await waited;
    const result = await conn.request(method, upstreamParams(conn, lane, sent), slot.config.callTimeoutMs, signal);
    // A task goes on after this answer (and reports progress under the same token): not "answered".
    answered = !call.task;
    if (call.task) return d.tasks.adopt(slot, slot.keyFor(lane, era), conn, who, call.params, result);
    return await checkedAnswer(d, { slot, lane, method, asked: call.params, wire, conn, key }, result);
  } catch (e) {
    d.turns.noteRefused(key, e);
    await d.secrets.failure(slot.config, lane, method, e, turn);
    if (e instanceof RpcFailure && (e.rpc.code === ERR.unavailable || e.rpc.code === ERR.timeout)) {
      throw new RpcFailure({ code: e.rpc.code, message: `upstream "${slot.config.name}": ${e.rpc.message}` });
    }
    throw e;
  } finally {
    turnEnds?.();
    d.progress.release(tracked, !answered); // only a call that got no answer is remembered for its late progress
  }
};
