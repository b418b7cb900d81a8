import { ERR, RpcFailure, type RpcRequest } from '../rpc/jsonrpc.js';
import type { UpstreamConn } from '../upstream/conn.js';
import { prefixResultUris } from './surface.js';
import { type ModernState, type TaskEntry, TERMINAL, withRelatedTask } from './task-table.js';
import { detailedTask, inlinedResult, modernTask } from './tasks-modern.js';

type Params = Record<string, unknown>;
type Entry = TaskEntry<UpstreamConn>;

/** Requests a child may have parked on one task at once. */
export const MAX_PARKED = 16;

/**
 * The IO of a 2026-07-28 lane's task over a 2025-11-25 upstream. The host asks the child for the
 * task's result at once (tasks/result waits for the end, and is where the child sends what it must
 * ask the client): each such request is parked as one of the task's `inputRequests` until the lane
 * answers it with tasks/update; the final result or error is kept for tasks/get to carry.
 */
export const startModern = (e: Entry, prefix: string, check?: FinalCheck): void => {
  const state: ModernState = { inputs: new Map(), seq: 0 };
  e.modern = state;
  const failed = (err: unknown): void => {
    state.final = {
      error:
        err instanceof RpcFailure ? { code: err.rpc.code, message: err.rpc.message } : { code: ERR.internal, message: 'internal error' },
    };
  };
  e.conn
    .request('tasks/result', { taskId: e.upstreamId }, Math.max(1, e.expiresAt - Date.now()))
    .then(
      async (r) => {
        // Checked once, as it comes: every tasks/get after carries it as it was let through.
        const shown = inlinedResult(r);
        state.final = { result: prefixResultUris('tools/call', prefix, check ? await check.answer(shown) : shown) };
      },
      async (err: unknown) => {
        // An upstream's error is its text too: it passes the gate, or what replaces it is kept.
        if (check) await check.failure(err);
        failed(err);
      },
    )
    .catch(failed);
};

/** What a task's final answer passes before any tasks/get carries it (the secret gate). */
export interface FinalCheck {
  answer(result: Params): Params | Promise<Params>;
  failure(err: unknown): Promise<void>;
}

/** A child's request about a 2026-07-28 lane's task: held for the lane's tasks/update (until the task expires). */
export const park = (e: Entry, r: RpcRequest): Promise<Params> =>
  new Promise((resolve, reject) => {
    const state = e.modern;
    if (!state) {
      reject(new RpcFailure({ code: ERR.internal, message: 'not a parked task' }));
      return;
    }
    // What a child may make a lane's task wait on at once is bounded, like everything it can make lanegate hold.
    if (state.inputs.size >= MAX_PARKED) {
      reject(new RpcFailure({ code: ERR.invalidRequest, message: `lanegate: a task waits on at most ${MAX_PARKED} requests at once` }));
      return;
    }
    state.seq += 1;
    const key = `input-${state.seq}`;
    const timer = setTimeout(
      () => {
        state.inputs.delete(key);
        reject(new RpcFailure({ code: ERR.timeout, message: 'the lane did not answer in time' }));
      },
      Math.max(1, e.expiresAt - Date.now()),
    );
    timer.unref();
    const done = (): void => {
      clearTimeout(timer);
      state.inputs.delete(key);
    };
    state.inputs.set(key, {
      method: r.method,
      params: withRelatedTask(r.params, e.id) ?? {},
      answer: (x) => {
        done();
        resolve(x);
      },
      fail: (x) => {
        done();
        reject(x);
      },
    });
  });

/** Waits (briefly, bounded) for the result of a task the child reports ended. */
const finalSoon = async (e: Entry): Promise<void> => {
  for (let i = 0; i < 100 && !e.modern?.final; i += 1) await new Promise((r) => setTimeout(r, 20));
};

const inputsOf = (e: Entry): Record<string, Params> =>
  Object.fromEntries([...(e.modern?.inputs ?? [])].map(([k, p]) => [k, { method: p.method, params: p.params }]));

/** tasks/get, tasks/update and tasks/cancel of a 2026-07-28 lane, on its own task. */
export const modernHandle = async (e: Entry, method: string, params: Params, timeoutMs: number, signal?: AbortSignal): Promise<Params> => {
  if (method === 'tasks/update') {
    const responses = params.inputResponses;
    if (typeof responses !== 'object' || responses === null || Array.isArray(responses))
      throw new RpcFailure({ code: ERR.invalidParams, message: 'Invalid params: params.inputResponses must be an object' });
    // Keys not outstanding (never issued, already answered) are ignored, as the extension says.
    for (const [k, v] of Object.entries(responses as Params)) {
      const parked = e.modern?.inputs.get(k);
      if (parked && typeof v === 'object' && v !== null) parked.answer(v as Params);
    }
    return {};
  }
  if (method === 'tasks/cancel') {
    if (!e.gone)
      await e.conn.request('tasks/cancel', { taskId: e.upstreamId }, timeoutMs, signal).catch((err: unknown) => {
        // Cancelling a task that already ended is acknowledged all the same (cancellation is cooperative).
        if (!(err instanceof RpcFailure && err.rpc.code === ERR.invalidParams)) throw err;
      });
    for (const p of [...(e.modern?.inputs.values() ?? [])])
      p.fail(new RpcFailure({ code: ERR.cancelled, message: 'the task was cancelled' }));
    e.settled = true;
    return {};
  }
  if (e.gone) return { ...modernTask(e.id, e.last, 'failed'), error: { code: ERR.unavailable, message: e.gone } };
  const t = await e.conn.request('tasks/get', { taskId: e.upstreamId }, timeoutMs, signal);
  if (typeof t.status === 'string' && TERMINAL.has(t.status) && t.status !== 'cancelled') await finalSoon(e);
  const shown = detailedTask(e.id, t, e.modern?.final, inputsOf(e));
  if (TERMINAL.has(String(shown.status))) e.settled = true;
  return shown;
};
