import type { UpstreamEvent } from '../../link/protocol.js';
import { escapeUntrusted } from '../../log/escape.js';

export interface UpstreamFailure {
  server: string;
  lane?: string;
  kind: 'start_failed' | 'crashed';
  /** The host's words with the child's own stderr line (escaped, short). */
  detail: string;
  at: string;
}

const MAX = 200;

/**
 * The last start failure or crash of each server (per lane for a dedicated child), until it
 * starts again: what `lanegate status`, `lanegate_status` and the dashboard show, so a server that
 * cannot start is seen without reading the log.
 */
export class UpstreamHealth {
  private readonly failures = new Map<string, UpstreamFailure>();

  note(e: UpstreamEvent, now = new Date()): void {
    const key = `${e.server}\u0000${e.lane ?? ''}`;
    if (e.kind === 'started' || e.kind === 'stopped') {
      if (e.kind === 'started') this.failures.delete(key);
      return;
    }
    if (this.failures.size >= MAX && !this.failures.has(key)) return;
    this.failures.set(key, {
      server: e.server,
      ...(e.lane ? { lane: e.lane } : {}),
      kind: e.kind,
      detail: escapeUntrusted(e.detail ?? '', 400),
      at: now.toISOString(),
    });
  }

  /** Current failures, of some servers only if asked. */
  list(servers?: readonly string[]): UpstreamFailure[] {
    return [...this.failures.values()].filter((f) => !servers || servers.includes(f.server));
  }
}
