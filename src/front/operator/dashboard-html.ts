import type { ReviewRow } from '../../shareability/review.js';
import { domainCell, hazardsSection, placementCell, type ProcessView, processesSection } from './dashboard-sections.js';
import type { UpstreamFailure } from './upstream-health.js';

/** HTML-escapes text; every string on the page goes through it (server-chosen strings included). */
export const esc = (v: unknown): string =>
  String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

export interface LaneView {
  name: string;
  servers: string[];
  enabled: boolean;
  catalog: string;
  lastSeen?: number;
  sessions: number;
}

export interface DashboardView {
  rows: ReviewRow[];
  lanes: LaneView[];
  refusals: { server: string; tool: string; finding: string; matched: string }[];
  measure: { running: boolean; done: number; measured: number; total: number };
  /** The operators' reviewed overrides that keep findings from refusing an upstream (or the error reading them). */
  trust: { server: string; kind: string; item: string; reviewedBy: string; at: string; note?: string }[] | { error: string };
  now: number;
  /** The front, hosts and children with pid and RSS (undefined when the hosts could not be asked). */
  processes?: ProcessView;
  failures?: UpstreamFailure[];
}

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1d2330;background:#f7f8fa}h1{font-size:20px;margin:0 0 4px}
h2{font-size:16px;margin:28px 0 8px}table{border-collapse:collapse;width:100%;background:#fff;box-shadow:0 1px 2px #0001}
th,td{text-align:left;padding:7px 10px;border-bottom:1px solid #e6e8ee;vertical-align:top}th{background:#eef0f5;font-weight:600}
.shared{color:#0a6b2f;font-weight:600}.dedicated{color:#4a5163;font-weight:600}.refuted{color:#a4161a;font-weight:600}
.tag{display:inline-block;padding:0 6px;border-radius:4px;background:#eef0f5;margin:1px 2px;font-size:12px}.warn{background:#fde8e8;color:#8a1111}
.note{color:#5b6275;font-size:12px}code{font-size:12px;background:#eef0f5;padding:1px 4px;border-radius:3px}
#bar{height:10px;background:#e6e8ee;border-radius:5px;overflow:hidden;width:320px;display:inline-block;vertical-align:middle}
#fill{height:100%;background:#2f6fde;width:0}button{padding:6px 14px;border:0;border-radius:5px;background:#2f6fde;color:#fff;cursor:pointer}
button:disabled{background:#9bb3e6}`;

const SCRIPT = `const btn=document.getElementById('measure'),fill=document.getElementById('fill'),txt=document.getElementById('progress');
const show=p=>{const pct=p.total?Math.round(100*p.done/p.total):0;fill.style.width=pct+'%';
txt.textContent=p.running?('measuring: '+p.done+'/'+p.total+' attempted'):(p.total?('done: '+p.measured+' of '+p.total+' measured'):'');
fill.dataset.done=String(!p.running&&p.total>0&&p.done===p.total);btn.disabled=p.running;};
const poll=async()=>{const r=await fetch('/api/measure');const p=await r.json();show(p);if(p.running)setTimeout(poll,400);else if(p.total)setTimeout(()=>location.reload(),800);};
btn.addEventListener('click',async()=>{btn.disabled=true;const r=await fetch('/api/measure',{method:'POST',headers:{'x-lanegate-csrf':'1'}});show(await r.json());setTimeout(poll,300);});
show(JSON.parse(document.getElementById('state').textContent));if(JSON.parse(document.getElementById('state').textContent).running)poll();`;

const ago = (t: number | undefined, now: number): string =>
  t === undefined ? 'never' : `${Math.max(0, Math.round((now - t) / 1000))}s ago`;

/** The dashboard: server-rendered HTML, no build step. Pure. */
export const renderDashboard = (v: DashboardView): string => {
  const servers = v.rows
    .map(
      (r) => `<tr id="server-${esc(r.server)}"><td><b>${esc(r.server)}</b><div class="note">prefix ${esc(r.prefix)}</div></td>
${domainCell(r)}${placementCell(r, v.now)}
<td class="${r.strength === 'refuted' ? 'refuted' : ''}">${esc(r.strength)}</td>
<td>${r.reasons.map((x) => `<div><span class="tag">${esc(x.code)}</span> <span class="note">${esc(x.detail)}</span></div>`).join('')}</td>
<td>${r.coverage ? `${r.coverage.exercised.length}/${r.coverage.listed}` : '—'}${r.scope.length > 0 ? `<div class="note">scope: ${esc(r.scope.join(', '))}</div>` : ''}${r.refuted.length > 0 ? `<div class="tag warn">refuted: ${esc(r.refuted.join(', '))}</div>` : ''}${r.live && r.placement === 'shared' ? `<div class="note">on the shared child: ${esc(r.live.sharedLanes.join(', ') || 'no lane yet')}</div>` : ''}${(r.live?.escalations ?? []).map((e) => `<div class="tag">${esc(e.lane)} dedicated since ${esc(e.request)}</div>`).join('')}</td>
<td>${r.hazards.length === 0 ? '—' : r.hazards.map((h) => `<div class="${h.current ? 'tag warn' : 'note'}">${esc(h.record.codes.join(', '))} ×${h.record.count}${h.current ? '' : ' (old launch)'}</div>`).join('')}</td>
<td class="guard-${esc(r.guard)}">${r.guard === 'refused' ? '<span class="tag warn">refused</span>' : esc(r.guard)}</td>
<td>${r.drift ? `<span class="tag warn">${esc(r.drift)}</span>` : '—'}</td>
<td>${r.refusedBy.map((x) => `<div><b>${esc(x.axis)}</b>: <span class="note">${esc(x.remedy)}</span></div>`).join('') || '—'}</td></tr>`,
    )
    .join('\n');
  const lanes = v.lanes
    .map(
      (
        l,
      ) => `<tr><td><b>${esc(l.name)}</b></td><td>${l.servers.map((s) => `<span class="tag">${esc(s)}</span>`).join('')}</td><td>${esc(l.catalog)}</td>
<td>${l.enabled ? 'enabled' : '<span class="tag warn">disabled</span>'}</td><td>${l.sessions} session(s); last call ${esc(ago(l.lastSeen, v.now))}</td></tr>`,
    )
    .join('\n');
  const refusals =
    v.refusals.length === 0
      ? '<p class="note">No guard refusals.</p>'
      : `<table><tr><th>server</th><th>tool</th><th>finding</th><th>matched</th></tr>${v.refusals
          .map(
            (r) =>
              `<tr class="refusal"><td>${esc(r.server)}</td><td>${esc(r.tool)}</td><td>${esc(r.finding)}</td><td><code>${esc(r.matched)}</code></td></tr>`,
          )
          .join('')}</table>`;
  const trust =
    'error' in v.trust
      ? `<p class="tag warn">${esc(v.trust.error)}</p>`
      : v.trust.length === 0
        ? '<p class="note">No trust overrides: every finding refuses its upstream.</p>'
        : `<table><tr><th>server</th><th>item</th><th>reviewed by</th><th>when</th><th>note</th></tr>${v.trust
            .map(
              (t) =>
                `<tr class="trust"><td>${esc(t.server)}</td><td>${esc(t.kind)} ${esc(t.item)}</td><td>${esc(t.reviewedBy)}</td><td>${esc(t.at)}</td><td>${esc(t.note ?? '')}</td></tr>`,
            )
            .join('')}</table>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>lanegate</title><meta name="viewport" content="width=device-width">
<style>${STYLE}</style></head><body><h1>lanegate</h1><div class="note">Sharing is earned: a server shares a process only when measured stateless and in one trust domain.</div>
<h2>Servers</h2><p><button id="measure">Measure now</button> <span id="bar"><span id="fill" style="display:block"></span></span> <span id="progress" class="note"></span></p>
<table><tr><th>server</th><th>trust domain (kind)</th><th>process placement</th><th>evidence</th><th>reasons</th><th>probe coverage and scope</th><th>ledger</th><th>guard</th><th>drift</th><th>co-location refused by</th></tr>
${servers}</table>
<h2>Processes</h2>${processesSection(v.processes)}
<h2>Hazards</h2>${hazardsSection(v.rows, v.failures ?? [])}
<h2>Guard refusals</h2>${refusals}
<h2>Trust overrides</h2><p class="note">Findings an operator reviewed and overrode (<code>lanegate trust</code>), each pinned to the exact surface it was given for.</p>${trust}
<h2>Lanes</h2><table><tr><th>lane</th><th>loadout</th><th>catalog</th><th>state</th><th>connection</th></tr>${lanes}</table>
<script type="application/json" id="state">${esc(JSON.stringify(v.measure)).replace(/&quot;/g, '"')}</script><script>${SCRIPT}</script></body></html>`;
};

export const renderLogin = (error?: string): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>lanegate — sign in</title><style>${STYLE}</style></head><body>
<h1>lanegate</h1><p class="note">The dashboard needs the operator token (printed at first start; also in <code>.lanegate/keys/operator.token</code>). A lane token does not open it.</p>
${error ? `<p class="tag warn">${esc(error)}</p>` : ''}<form method="post" action="/dashboard/login"><input name="token" type="password" size="48" autocomplete="off" placeholder="lgo_…"> <button type="submit">Open</button></form></body></html>`;
