import type { ReviewRow } from '../../shareability/review.js';
import type { UpstreamFailure } from './upstream-health.js';

/** HTML-escapes text (the same rule as the rest of the page). */
const esc = (v: unknown): string =>
  String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

export interface ProcessView {
  front: { pid: number; rssMb?: number };
  hosts: {
    key: string;
    pid: number;
    rssMb?: number;
    children: { server: string; placement: string; lane?: string; lanes?: string[]; pid: number; rssMb?: number }[];
  }[];
}

const mb = (n: number | undefined): string => (n === undefined ? '?' : `${n} MB`);

/** The trust domain and its KIND (shared / principal): a property of the domain, not of a process. */
export const domainCell = (r: ReviewRow): string =>
  `<td class="domain">${esc(r.domain)}<div class="note">domain kind: <b>${esc(r.kind)}</b></div></td>`;

/**
 * Where the server's process runs (PLACEMENT: one shared child, or one per lane), and, where the
 * lanes differ (a lane moved to a dedicated child, a placement changing live), each lane's own;
 * and when it was promoted or retreated live.
 */
const ago = (t: number, now: number): string => `${Math.max(0, Math.round((now - t) / 1000))}s ago`;

export const placementCell = (r: ReviewRow, now = Date.now()): string => {
  const running = r.live?.runningPlacement ?? r.placement;
  const moved = new Map((r.live?.escalations ?? []).map((e) => [e.lane, e.request]));
  const perLane = r.lanes.map((l) => ({ lane: l, placement: moved.has(l) ? 'dedicated' : running, why: moved.get(l) }));
  const differ = new Set(perLane.map((p) => p.placement)).size > 1 || running !== r.placement;
  const label = r.placement === 'shared' ? 'shared process' : 'dedicated per lane';
  return `<td class="placement ${esc(r.placement)}"><span class="${esc(r.placement)}">${esc(label)}</span>${
    running !== r.placement ? `<div class="note">runs ${esc(running)} right now (changing live)</div>` : ''
  }${r.live?.promotedAt ? `<div class="note">promoted live ${ago(r.live.promotedAt, now)}; moved on: ${esc(r.live.joined?.map((j) => j.lane).join(', ') || 'none')}</div>` : ''}${
    r.live?.retreatedAt ? `<div class="tag warn">retreated live ${ago(r.live.retreatedAt, now)}</div>` : ''
  }${
    differ
      ? `<div class="per-lane">${perLane
          .map(
            (p) =>
              `<div class="note lane-placement">lane <b>${esc(p.lane)}</b>: <span class="${esc(p.placement)}">${esc(p.placement)}</span>${p.why ? ` (since it called ${esc(p.why)})` : ''}</div>`,
          )
          .join('')}</div>`
      : ''
  }</td>`;
};

/** Every process lanegate runs: the front, each host, each child, with pid, RSS and lanes. */
export const processesSection = (p: ProcessView | undefined): string => {
  if (!p) return '<p class="note">Processes could not be listed.</p>';
  const rows = [
    `<tr class="process"><td>front</td><td>${p.front.pid}</td><td>${mb(p.front.rssMb)}</td><td class="note">every lane (no upstream secret)</td></tr>`,
  ];
  for (const h of p.hosts) {
    rows.push(
      `<tr class="process"><td>host <b>${esc(h.key)}</b></td><td>${h.pid}</td><td>${mb(h.rssMb)}</td><td class="note">trust domain host</td></tr>`,
    );
    for (const c of h.children)
      rows.push(
        `<tr class="process child"><td>&nbsp;&nbsp;└ ${esc(c.server)} <span class="note">${esc(c.placement)}</span></td><td>${c.pid}</td><td>${mb(c.rssMb)}</td><td>${
          c.lane ? esc(c.lane) : esc(c.lanes?.join(', ') || 'no lane yet')
        }</td></tr>`,
      );
  }
  return `<table id="processes"><tr><th>process</th><th>pid</th><th>RSS</th><th>lanes</th></tr>${rows.join('')}</table>`;
};

/** Hazards observed under the launch identities in force, and servers that failed to start or crashed. */
export const hazardsSection = (rows: ReviewRow[], failures: UpstreamFailure[]): string => {
  const current = rows.flatMap((r) => r.hazards.filter((h) => h.current).map((h) => ({ server: r.server, ...h.record })));
  const hazards =
    current.length === 0
      ? '<p class="note">No hazard observed under the current launch identities.</p>'
      : `<table id="hazards"><tr><th>server</th><th>hazard</th><th>count</th><th>last seen</th></tr>${current
          .map(
            (h) =>
              `<tr class="hazard"><td>${esc(h.server)}</td><td><span class="tag warn">${esc(h.codes.join(', '))}</span></td><td>${h.count}</td><td>${esc(Number.isFinite(h.lastSeen) ? new Date(h.lastSeen).toISOString() : '?')}</td></tr>`,
          )
          .join('')}</table>`;
  const failed =
    failures.length === 0
      ? ''
      : `<table id="failures"><tr><th>server</th><th>lane</th><th>what</th><th>its own words</th></tr>${failures
          .map(
            (f) =>
              `<tr class="failure"><td>${esc(f.server)}</td><td>${esc(f.lane ?? 'shared')}</td><td><span class="tag warn">${f.kind === 'start_failed' ? 'failed to start' : 'crashed'}</span></td><td><code>${esc(f.detail)}</code></td></tr>`,
          )
          .join('')}</table>`;
  return `${hazards}${failed}`;
};
