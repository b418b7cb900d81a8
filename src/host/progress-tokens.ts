import { randomUUID } from 'node:crypto';
/**
 * Progress tokens are the CLIENT's choice, so two lanes may pick the same one. The front mints a
 * gateway-unique token for each call (front/transport/call-streams.ts, `lgp-<uuid>`) and the host sends
 * that one upstream as it is: a call's token is minted once. A progress frame is then attributed to
 * exactly one call, and goes back to the front under the token the front sent.
 *
 * Only a token the host can prove unique on it goes upstream as it came: a string of the front's
 * form that no call in flight here holds. Anything else (a lane's own token on a request the front
 * streams nothing for, or a clash) gets a token of the host's own, so attribution never depends on
 * what a lane chose.
 */
const FRONT_MINTED = 'lgp-';

/**
 * How many abandoned calls' tokens are remembered, oldest forgotten first. Only calls that ended
 * without their answer (cancelled, timed out, failed, their client gone) are remembered: a call
 * answered normally gets no late progress from an honest server, so a lane's ordinary traffic never
 * pushes one out. ~100 bytes each: at most a few MB.
 */
const RETIRED_MAX = 65_536;

export class ProgressTokens {
  private readonly owners = new Map<string, { lane: string; token: string | number; child?: string | undefined }>();
  /**
   * Tokens of calls that ended (answered, cancelled, timed out, their client gone), with their
   * lane: an upstream that ignores cancellation goes on reporting progress for them (attack round
   * 8: server-everything's long-running tool did, and each such line was taken for a cross-lane
   * hazard that stopped the shared child). Such a line belongs to a known call of a known lane and
   * is dropped; only a token never handed out here stays unattributable.
   */
  private readonly retired = new Map<string, { lane: string; child: string | undefined }>();

  /**
   * The token to send upstream for this call, or undefined when the lane asked for no progress.
   * `child`: the key of the child it goes to (an ended call's late progress is known only from there).
   */
  track(lane: string, token: unknown, child?: string): string | undefined {
    if (typeof token !== 'string' && typeof token !== 'number') return undefined;
    let mine = typeof token === 'string' && token.startsWith(FRONT_MINTED) ? token : undefined;
    // Bounded: each pass skips one token held by a call in flight.
    // Random, as the front's are: a counter would let an upstream count the host's other calls.
    while (mine === undefined || this.owners.has(mine)) mine = `${FRONT_MINTED}h${randomUUID()}`;
    this.owners.set(mine, child === undefined ? { lane, token } : { lane, token, child });
    this.retired.delete(mine);
    return mine;
  }

  /**
   * The call in flight that holds this token, if it was sent to `child` (when given): a child
   * reporting on a token of a call on ANOTHER child owns nothing by it (review: tokens are counters,
   * so a child could name another's).
   */
  owner(token: unknown, child?: string): { lane: string; token: string | number } | undefined {
    const o = typeof token === 'string' ? this.owners.get(token) : undefined;
    if (!o || (child !== undefined && o.child !== undefined && o.child !== child)) return undefined;
    return o;
  }

  /** The call ended; `abandoned` when it ended without its answer (its upstream may go on reporting). */
  release(token: string | undefined, abandoned = true): void {
    if (token === undefined) return;
    const o = this.owners.get(token);
    if (!o) return;
    this.owners.delete(token);
    if (!abandoned) return;
    this.retired.set(token, { lane: o.lane, child: o.child });
    if (this.retired.size > RETIRED_MAX) this.retired.delete(this.retired.keys().next().value as string);
  }

  /** The lane and child of an ended call that held this token, while it is remembered. */
  retiredCall(token: unknown): { lane: string; child: string | undefined } | undefined {
    return typeof token === 'string' ? this.retired.get(token) : undefined;
  }
}
