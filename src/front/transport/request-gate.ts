import { LARGE_TURN_CHARS, turn } from '../../rpc/turn.js';
import { type Exchange, type Pace, type Replied, whenClosed } from './exchange.js';
import { rpcError } from './post-context.js';
import { ERR } from '../../rpc/jsonrpc.js';
import { BYTE_TURN_MIN } from '../../link/byte-turns.js';
import { REQUEST_MS } from './connection-pool.js';
import { largeText } from '../../rpc/gc-hint.js';
import { LARGE_LINE } from '../../rpc/peer.js';
import { decodeUtf8, type WireParts } from '../../rpc/parts.js';
import { type LargeBody, openLargeBody } from './large-body.js';
import { accepts, type BodyRead, isJsonContentType, jsonDepthOver, jsonDepthOverPaced, peekBody, readBody } from './body.js';
import { type McpHttpDeps, rpcErrorData } from './http-deps.js';
import type { LoadKind, LoadRefusal } from './lane-load.js';

/**
 * What a lane's HTTP request must get past before it is parsed and dispatched: its lane's limits
 * on open requests and streams, its fair turn for a call, and a body that is JSON, accepted,
 * bounded while it streams and not nested too deep. Each refusal is a 4xx with a JSON-RPC error
 * naming the setting that raises it.
 */
/** A per-lane limit reached: 429 with Retry-After and a JSON-RPC error naming the setting. */
export const refuseLoad = (c: Exchange, r: LoadRefusal, id: unknown = null): Replied =>
  rpcErrorData(c, { status: r.status, code: ERR.invalidRequest, message: r.message, data: { limit: r.setting, value: r.limit } }, id, {
    'Retry-After': String(r.retryAfterS),
  });

/** Counts an open HTTP request of the lane until its response closes; undefined if it may go on. */
export const hold = (c: Exchange, d: McpHttpDeps, lane: string, kind: LoadKind): Replied | undefined => {
  const r = d.load.take(lane, kind);
  if (typeof r !== 'function') return refuseLoad(c, r);
  whenClosed(c.outgoing, r);
  return undefined;
};

/** What a wait for a turn ended in when the call itself was cancelled meanwhile (see call-turns.ts). */
export const CANCELLED_WAITING = Symbol('cancelled while waiting for its turn');

/**
 * A call that may wait for a turn: `waiting` makes it reachable by the lane's cancellation for as
 * long as it waits (and returns the undoing), `signal` is what that cancellation aborts. A call
 * that runs at once costs nothing of this.
 */
export interface Waiter {
  readonly signal: AbortSignal;
  readonly waiting: () => () => void;
  /** The call's JSON-RPC id: a refusal answers it (the body was read: it is known). */
  readonly id?: unknown;
}

/**
 * A turn that runs now, or waits (giving up its place if the client goes: 499, or if `w` is
 * cancelled meanwhile: CANCELLED_WAITING); either way it ends when the response closes.
 */
const runOrWait = async (
  c: Exchange,
  a: { kind: 'run'; release: () => void } | { kind: 'wait'; started: Promise<() => void>; cancel: () => void },
  w?: Waiter,
  deadline?: { ms: number; refuse: () => Replied },
): Promise<Replied | typeof CANCELLED_WAITING | undefined> => {
  const outgoing = c.outgoing;
  if (a.kind === 'run') {
    whenClosed(outgoing, a.release);
    return undefined;
  }
  const done = w?.waiting();
  let onAbort: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  let late = false;
  const gone = new Promise<undefined>((resolve) => {
    whenClosed(outgoing, () => resolve(undefined));
    onAbort = () => resolve(undefined);
    w?.signal.addEventListener('abort', onAbort, { once: true });
    if (deadline)
      timer = setTimeout(() => {
        late = true;
        resolve(undefined);
      }, deadline.ms);
  });
  const release = await Promise.race([a.started, gone]).finally(() => {
    done?.();
    clearTimeout(timer);
    if (onAbort) w?.signal.removeEventListener('abort', onAbort);
  });
  if (!release) {
    a.cancel();
    // Started in the same tick as the client left: the turn is given back, never leaked.
    void a.started.then((r) => r());
    if (late && deadline && !outgoing?.writableEnded) return deadline.refuse();
    return w?.signal.aborted && !outgoing?.writableEnded ? CANCELLED_WAITING : c.body(null, 499);
  }
  whenClosed(outgoing, release);
  return undefined;
};

/**
 * A call takes its lane's fair share of the gateway: it runs now, or waits its turn behind the
 * lane's own earlier calls while other lanes are active (giving up its place if the client goes),
 * or, past gateway.limits.callsPerLane in flight and waiting, is refused with 429.
 */
export const takeTurn = async (
  c: Exchange,
  d: McpHttpDeps,
  lane: string,
  w?: Waiter,
): Promise<Replied | typeof CANCELLED_WAITING | undefined> => {
  const a = d.fair.enter(lane);
  if (a.kind === 'full') {
    const limit = d.policy().gateway.limits.callsPerLane;
    return refuseLoad(
      c,
      {
        status: 429,
        setting: 'gateway.limits.callsPerLane',
        limit,
        message: `Too many calls of this lane in flight or waiting (${limit}); finish some first, or raise gateway.limits.callsPerLane`,
        retryAfterS: 1,
      },
      w?.id ?? null,
    );
  }
  return runOrWait(c, a, w);
};

export { BYTE_TURN_MIN } from '../../link/byte-turns.js';

/**
 * A large request takes its lane's turn by bytes BEFORE its body is read: it runs while the lane's
 * bytes in flight stay under gateway.limits.bytesInFlightPerLane, else waits with its body unread
 * (giving up its place if the client goes). The turn ends when the response closes.
 */
export const takeByteTurn = async (c: Exchange, d: McpHttpDeps, lane: string): Promise<Replied | undefined> => {
  const length = c.req.header('content-length');
  const declared = Number(length);
  if (length === undefined) {
    // A chunked body says nothing of its size: its first BYTE_TURN_MIN bytes are read first, and
    // one that ends there is small (an answer, a cancel) and takes no turn. Counted as the largest
    // body for its whole call, two small chunked calls in flight held every request of the lane
    // behind them, the answers they were waiting for too, until callTimeout (attack round 11, F3).
    c.bodyHead = await peekBody(c.incoming, BYTE_TURN_MIN);
    if (!c.bodyHead || c.bodyHead.ended) return undefined;
  }
  const bytes = Number.isFinite(declared) && declared >= 0 ? declared : d.policy().gateway.maxBodyBytes;
  // A body too large to accept takes no turn: the body check refuses it at once with 413.
  if (bytes <= BYTE_TURN_MIN || declared > d.policy().gateway.maxBodyBytes) return undefined;
  // No signal: this wait ends in a turn, the client leaving, or BYTE_TURN_WAIT_MS passing.
  return (await runOrWait(c, d.requestBytes.enter(lane, bytes), undefined, {
    ms: BYTE_TURN_WAIT_MS,
    refuse: () =>
      refuseBytesInFlight(
        c,
        d,
        `This lane's large requests in flight held this one's turn by bytes for ${BYTE_TURN_WAIT_MS / 1000} s, its body unread: send fewer large requests at once`,
      ),
  })) as Replied | undefined;
};

/**
 * Longest a large request waits for its byte turn with its body unread. Node's deadline for a whole
 * request (REQUEST_MS, 30 s) counts that wait too, and when it passed first the client got a bare
 * 408 with no body (attack round 16, F1): the wait ends well before it, with an answer it can act on.
 */
export const BYTE_TURN_WAIT_MS = Math.floor(REQUEST_MS / 2);

/** 429 naming gateway.limits.bytesInFlightPerLane, with `Retry-After`; a body still arriving is not read (unread-body.ts). */
const refuseBytesInFlight = (c: Exchange, d: McpHttpDeps, why: string, id: unknown = null): Replied =>
  refuseLoad(
    c,
    {
      status: 429,
      setting: 'gateway.limits.bytesInFlightPerLane',
      limit: d.policy().gateway.limits.bytesInFlightPerLane,
      message: `${why}, or raise gateway.limits.bytesInFlightPerLane`,
      retryAfterS: 1,
    },
    id,
  );

/**
 * A request (never a notification or a response: a lane can always cancel and answer) of a lane
 * whose recent answers are large takes a turn weighed by them, in a queue of its own (so it can
 * never wait on its own body's turn), and a lane whose clients already hold unread answers up to
 * gateway.limits.unsentBytesPerLane gets 429 before the call reaches a host: it would be carried
 * through a host and the front only to be refused.
 */
export const takeAnswerTurn = async (
  c: Exchange,
  d: McpHttpDeps,
  lane: string,
  w?: Waiter,
): Promise<Replied | typeof CANCELLED_WAITING | undefined> => {
  const expected = d.send.expected(lane);
  if (expected <= BYTE_TURN_MIN) return undefined;
  const held = d.send.of(lane);
  const limit = d.policy().gateway.limits.unsentBytesPerLane;
  if (held > 0 && held + expected > limit)
    return refuseLoad(
      c,
      {
        status: 429,
        setting: 'gateway.limits.unsentBytesPerLane',
        limit,
        message: `This lane's clients have ${held} bytes of answers they have not read, and its recent answers are ${expected} bytes: read (or close) them first, or raise gateway.limits.unsentBytesPerLane`,
        retryAfterS: 1,
      },
      w?.id ?? null,
    );
  // Bounded as a body's turn is: a lane's clients that hold large answers unread (each released
  // only when read, or when its connection stalls out) held another client's small call of the
  // same lane past 60 s without a word (attack round 17, MEDIUM-3).
  return runOrWait(c, d.answerBytes.enter(lane, expected), w, {
    ms: BYTE_TURN_WAIT_MS,
    refuse: () => {
      // What held the turn: answers still unread by its clients, or (none left unread) its other large calls in flight.
      const unread = d.send.of(lane);
      const why =
        unread > 0
          ? `its clients still hold ${unread} bytes of answers unread: this call waited ${BYTE_TURN_WAIT_MS / 1000} s for its turn. Read (or close) those answers first`
          : `its other large calls still in flight held this call's turn for ${BYTE_TURN_WAIT_MS / 1000} s: make fewer such calls at once`;
      return refuseBytesInFlight(c, d, `This lane's recent answers are ${expected} bytes each, and ${why}`, w?.id ?? null);
    },
  });
};

/** How this lane's large answers are paced and held against gateway.limits.unsentBytes*. */
export const paceFor = (d: McpHttpDeps, lane: string): Pace => ({
  hold: (bytes, held) => d.send.hold(lane, bytes, held),
  stallMs: () => d.policy().gateway.limits.stalledSendSeconds * 1000,
});

/** 413 naming the setting; a body still arriving is not read, and the connection closes with the answer (unread-body.ts). */
const tooLarge = (c: Exchange, max: number): Replied =>
  rpcError(c, 413, ERR.invalidRequest, `Request body over ${max} bytes; raise gateway.maxBodyBytes to allow larger ones`);

/** A body read and checked: the text to parse, and the text as sent (to pass on). */
export interface JsonBody {
  /** The body's text; for a large body opened on its bytes, its skeleton (large-body.ts). */
  text: string;
  /** The body as sent: the text, or a large body's parts in order (never joined). */
  sent: string | WireParts;
  /** Set when `text` is a skeleton: its placeholders' values. */
  opened?: LargeBody;
}

/** A large body opened on its bytes (large-body.ts), or decoded whole when it cannot be. */
const jsonOf = async (body: Extract<BodyRead, { ok: true }>): Promise<JsonBody> => {
  if (body.length < LARGE_TURN_CHARS) {
    const text = decodeUtf8(body.bytes());
    return { text, sent: text };
  }
  await turn();
  const opened = await openLargeBody(body.chunks, turn);
  if (opened) return { text: opened.skeleton, sent: opened.parts, opened };
  await turn();
  const text = decodeUtf8(body.bytes());
  return { text, sent: text };
};

/**
 * The body, bounded while it streams (Content-Length or not), or the error response:
 * 415 for a body that is not JSON by its Content-Type, 406 for an Accept without JSON, 413 past
 * gateway.maxBodyBytes, 400 past gateway.limits.jsonDepth.
 */
export const boundedBody = async (c: Exchange, d: McpHttpDeps): Promise<JsonBody | Replied> => {
  if (!isJsonContentType(c.req.header('content-type')))
    return rpcError(c, 415, ERR.invalidRequest, 'Unsupported Media Type: Content-Type must be application/json');
  if (!accepts(c.req.header('accept'), 'application/json'))
    return rpcError(c, 406, ERR.invalidRequest, 'Not Acceptable: Accept must include application/json');
  const g = d.policy().gateway;
  const max = g.maxBodyBytes;
  // A body declared past the bound is refused at once and never read: the connection closes with
  // the 413 (unread-body.ts). Draining it to keep the connection let a looping client hold the
  // front's CPU with bodies it knew would be refused (attack round 17).
  if (Number(c.req.header('content-length')) > max) return tooLarge(c, max);
  const r = await readBody(c.incoming, max, c.bodyHead);
  if (!r.ok) return tooLarge(c, max);
  if (r.length > LARGE_LINE) largeText().note(r.length);
  // The read that ended the body was one step; opening and checking a large one take the next ones.
  const json = await jsonOf(r);
  const text = json.text;
  const large = text.length >= LARGE_TURN_CHARS;
  if (large) await turn();
  if (large ? await jsonDepthOverPaced(text, g.limits.jsonDepth, turn) : jsonDepthOver(text, g.limits.jsonDepth))
    return rpcError(
      c,
      400,
      ERR.invalidRequest,
      `Invalid Request: JSON nested deeper than ${g.limits.jsonDepth} (gateway.limits.jsonDepth)`,
    );
  return json;
};
