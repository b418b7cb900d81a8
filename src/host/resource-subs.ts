/**
 * Who is subscribed to which resource of which upstream child. A subscriber is one holder of one
 * lane (a handshake-era session, or a 2026-07-28 listen stream): the upstream is subscribed when
 * the first holder of a child asks and unsubscribed when the last one lets go, and an update
 * reaches exactly the holders of that URI on that child. Pure bookkeeping.
 */
export interface Holder {
  lane: string;
  holder: string;
}

const id = (h: Holder): string => `${h.lane}\u0000${h.holder}`;

export class ResourceSubs {
  /** child key → uri → subscriber id → holder. */
  private readonly byChild = new Map<string, Map<string, Map<string, Holder>>>();

  /** Adds a holder; true when it is the child's first for this URI (subscribe upstream). */
  add(child: string, uri: string, h: Holder): boolean {
    const uris = this.byChild.get(child) ?? new Map<string, Map<string, Holder>>();
    this.byChild.set(child, uris);
    const holders = uris.get(uri) ?? new Map<string, Holder>();
    const first = holders.size === 0;
    holders.set(id(h), h);
    uris.set(uri, holders);
    return first;
  }

  /** Removes a holder; true when it was the child's last for this URI (unsubscribe upstream). */
  remove(child: string, uri: string, h: Holder): boolean {
    const holders = this.byChild.get(child)?.get(uri);
    if (!holders?.delete(id(h))) return false;
    if (holders.size > 0) return false;
    this.byChild.get(child)?.delete(uri);
    return true;
  }

  holders(child: string, uri: string): Holder[] {
    return [...(this.byChild.get(child)?.get(uri)?.values() ?? [])];
  }

  /** The URIs a child is subscribed to (to renew them when the child restarts). */
  uris(child: string): string[] {
    return [...(this.byChild.get(child)?.keys() ?? [])];
  }

  /** Every (child, uri, holder) whose child key starts with `prefix`. */
  entries(prefix: string): { child: string; uri: string; holder: Holder }[] {
    const out: { child: string; uri: string; holder: Holder }[] = [];
    for (const [child, uris] of this.byChild) {
      if (!child.startsWith(prefix)) continue;
      for (const [uri, holders] of uris) for (const h of holders.values()) out.push({ child, uri, holder: h });
    }
    return out;
  }

  /** Whether any holder keeps this child subscribed to anything (it must not idle out). */
  held(child: string): boolean {
    return (this.byChild.get(child)?.size ?? 0) > 0;
  }
}
