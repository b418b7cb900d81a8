import { randomBytes } from 'node:crypto';

const TTL_MS = 8 * 60 * 60 * 1000;
const MAX = 64;

/** Browser sessions for the dashboard: opaque ids in an HttpOnly, SameSite=Strict cookie. */
export class DashboardSessions {
  private readonly ids = new Map<string, number>();

  create(): string {
    if (this.ids.size >= MAX) this.ids.delete(this.ids.keys().next().value as string);
    const id = randomBytes(24).toString('base64url');
    this.ids.set(id, Date.now() + TTL_MS);
    return id;
  }

  valid(cookieHeader: string | undefined): boolean {
    const id = /(?:^|;\s*)lg_dash=([A-Za-z0-9_-]{20,})/.exec(cookieHeader ?? '')?.[1];
    if (!id) return false;
    const exp = this.ids.get(id);
    if (exp === undefined || exp < Date.now()) {
      this.ids.delete(id);
      return false;
    }
    return true;
  }

  cookie(id: string): string {
    return `lg_dash=${id}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${TTL_MS / 1000}`;
  }
}
