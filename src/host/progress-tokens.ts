/**
 * Progress tokens are the CLIENT's choice, so two lanes may pick the same one. The front mints a
 * gateway-unique token for each call (front/transport/call-streams.ts, `lgp-N`) and the host sends
 * that one upstream as it is: a call's token is minted once. A progress frame is then attributed to
 * exactly one call, and goes back to the front under the token the front sent.
 *
 * Only a token the host can prove unique on it goes upstream as it came: a string of the front's
 * form that no call in flight here holds. Anything else (a lane's own token on a request the front
 * streams nothing for, or a clash) gets a token of the host's own, so attribution never depends on
 * what a lane chose.
 */
const FRONT_MINTED = 'lgp-';

export class ProgressTokens {
  private readonly owners = new Map<string, { lane: string; token: string | number }>();
  private next = 1;

  /** The token to send upstream for this call, or undefined when the lane asked for no progress. */
  track(lane: string, token: unknown): string | undefined {
    if (typeof token !== 'string' && typeof token !== 'number') return undefined;
    let mine = typeof token === 'string' && token.startsWith(FRONT_MINTED) ? token : undefined;
    // Bounded: each pass skips one token held by a call in flight.
    while (mine === undefined || this.owners.has(mine)) mine = `${FRONT_MINTED}h${this.next++}`;
    this.owners.set(mine, { lane, token });
    return mine;
  }

  owner(token: unknown): { lane: string; token: string | number } | undefined {
    return typeof token === 'string' ? this.owners.get(token) : undefined;
  }

  release(token: string | undefined): void {
    if (token !== undefined) this.owners.delete(token);
  }
}
