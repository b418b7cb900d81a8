/**
 * Progress tokens are the CLIENT's choice, so two lanes may pick the same one. A call's token is
 * replaced by a gateway-unique one on its way upstream; a progress frame is then attributed to
 * exactly one call, and goes back with the token that lane chose.
 */
export class ProgressTokens {
  private readonly owners = new Map<string, { lane: string; token: string | number }>();
  private next = 1;

  /** The token to send upstream for this call, or undefined when the lane asked for no progress. */
  track(lane: string, token: unknown): string | undefined {
    if (typeof token !== 'string' && typeof token !== 'number') return undefined;
    const mine = `lgp-${this.next++}`;
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
