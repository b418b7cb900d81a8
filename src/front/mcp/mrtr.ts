import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Dispatched } from './dispatch.js';
import type { CallStream } from '../transport/call-streams.js';

/** How long a parked call waits for the lane's retry with inputResponses. */
export const REQUEST_STATE_TTL_MS = 120_000;

/** The random id of a parked call, sealed inside its requestState. */
type ParkId = string;

export interface ParkedCall {
  lane: string;
  /** What the call was: tools/call + name, so a retry of another call cannot resume it. */
  callKey: string;
  done: Promise<Dispatched>;
  stream: CallStream;
  /** inputRequests key → the gateway-made id of the relayed client request. */
  pending: Map<string, string>;
  timer: NodeJS.Timeout;
  /** What the upstream hears when the call is never resumed. */
  onExpire: () => void;
}

/**
 * MRTR translation for 2026-07-28 lanes: an upstream's server-to-client request during a modern
 * lane's call parks the call and answers `input_required`; the lane's retry carries
 * `inputResponses` and the `requestState`, which is an HMAC-sealed, short-lived token bound to
 * the lane and the call. It is never trusted as given: a tampered, expired, replayed or other
 * lane's state is refused.
 */
export class Mrtr {
  private readonly key = randomBytes(32);
  /** Parked calls by the random id sealed in their requestState (ParkId). */
  private readonly parked = new Map<ParkId, ParkedCall>();

  constructor(private readonly ttlMs = REQUEST_STATE_TTL_MS) {}

  park(p: Omit<ParkedCall, 'timer' | 'onExpire'>, onExpire: () => void): string {
    const id: ParkId = randomBytes(12).toString('base64url');
    const timer = setTimeout(() => {
      this.parked.delete(id);
      onExpire();
    }, this.ttlMs);
    timer.unref();
    this.parked.set(id, { ...p, timer, onExpire });
    return this.seal({ id, lane: p.lane, call: p.callKey, exp: Date.now() + this.ttlMs });
  }

  /**
   * The lane is gone: its parked calls will never be resumed, so each lets its upstream hear now
   * what it would have heard at its expiry.
   */
  dropLane(lane: string): void {
    for (const [id, p] of this.parked) {
      if (p.lane !== lane) continue;
      this.parked.delete(id);
      clearTimeout(p.timer);
      p.onExpire();
    }
  }

  private seal(payload: Record<string, unknown>): string {
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    const mac = createHmac('sha256', this.key).update(body).digest('base64url');
    return `${body}.${mac}`;
  }

  private readonly used = new Map<string, number>();

  /**
   * An upstream spoken to in 2026-07-28 asked for input itself: its own requestState is wrapped
   * in ours, so the lane cannot take it to another lane or call, or replay it.
   */
  sealUpstream(lane: string, callKey: string, upstream: unknown): string {
    const id = randomBytes(12).toString('base64url');
    return this.seal({ id, lane, call: callKey, exp: Date.now() + this.ttlMs, up: typeof upstream === 'string' ? upstream : null });
  }

  /** The parked call a requestState resumes (or the upstream's own state), or why it cannot. One-shot. */
  take(
    state: unknown,
    lane: string,
    callKey: string,
  ): { ok: true; call: ParkedCall } | { ok: true; upstream: string | undefined } | { ok: false; reason: string } {
    if (typeof state !== 'string' || !state.includes('.')) return { ok: false, reason: 'requestState is malformed' };
    const [body = '', mac = ''] = state.split('.');
    const want = createHmac('sha256', this.key).update(body).digest();
    const got = Buffer.from(mac, 'base64url');
    if (got.length !== want.length || !timingSafeEqual(got, want)) return { ok: false, reason: 'requestState failed its integrity check' };
    let p: { id?: string; lane?: string; call?: string; exp?: number; up?: string | null };
    try {
      p = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as typeof p;
    } catch {
      return { ok: false, reason: 'requestState is malformed' };
    }
    // Another lane's state and another call's get the same answer: a refusal does not tell a lane
    // that what it holds is some other lane's (attack round 16).
    if (p.lane !== lane || p.call !== callKey) return { ok: false, reason: 'requestState is not valid for this call' };
    if (typeof p.exp !== 'number' || p.exp < Date.now()) return { ok: false, reason: 'requestState expired' };
    if (p.up !== undefined) {
      if (!p.id || this.used.has(p.id)) return { ok: false, reason: 'requestState is no longer valid (already used or expired)' };
      const now = Date.now();
      for (const [k, exp] of this.used) if (exp < now) this.used.delete(k);
      this.used.set(p.id, p.exp);
      return { ok: true, upstream: p.up ?? undefined };
    }
    const call = p.id ? this.parked.get(p.id) : undefined;
    if (!call || !p.id) return { ok: false, reason: 'requestState is no longer valid (already used or expired)' };
    this.parked.delete(p.id);
    clearTimeout(call.timer);
    return { ok: true, call };
  }
}
