import { escapeUntrusted, shellQuote } from '../log/escape.js';
import type { Finding } from './findings.js';

export interface Refusal {
  upstream: string;
  lanes: string[];
  layer: 'structural' | 'semantic';
  /** The tool (or prompt, resource, "instructions", policy path) the finding is about. */
  tool: string;
  /** The item as `lanegate trust --tool` names it (without the kind), when it differs from `tool`. */
  item?: string;
  finding: string;
  matched: string;
  action: string;
  remedy: string[];
  when: 'admission' | 'drift' | 'policy load' | 'lane catalog';
}

/**
 * The refusal as an operator reads it, in the shape of the design's example. Every string a
 * server chose is escaped, so a poisoned description cannot forge lines of this block. Pure.
 */
export const formatRefusal = (r: Refusal): string =>
  [
    `REFUSED upstream "${escapeUntrusted(r.upstream, 80)}" at ${r.when} (lanes: ${r.lanes.length > 0 ? r.lanes.join(', ') : 'none'})`,
    `  layer:    ${r.layer}`,
    `  tool:     ${escapeUntrusted(r.tool, 120)}`,
    `  finding:  ${r.finding}`,
    `  matched:  "${escapeUntrusted(r.matched, 240)}"`,
    `  action:   ${r.action}`,
    `  remedy:   ${r.remedy[0] ?? ''}`,
    ...r.remedy.slice(1).map((l) => `            ${l}`),
  ].join('\n');

export const semanticRemedy = (server: string, item: string): string[] => [
  `lanegate inspect ${shellQuote(server)} --tool ${shellQuote(item)}`,
  `override with: lanegate trust ${shellQuote(server)} --tool ${shellQuote(item)} --reviewed-by <you>`,
];

/**
 * A server withheld from one lane for its open findings (the first named, the rest counted), in the
 * refusal format: by that lane's own child (a host) or by that lane's whole catalog (the front).
 */
export const laneWithheld = (server: string, lane: string, open: readonly Finding[], action: string, when: Refusal['when']): Refusal => {
  const first = open[0] as Finding;
  return {
    upstream: server,
    lanes: [lane],
    layer: 'semantic',
    tool: first.kind === 'tool' ? first.item : `${first.kind} ${first.item}`,
    item: first.item,
    finding: `${first.finding}${open.length > 1 ? ` (+${open.length - 1} more)` : ''}`,
    matched: first.matched,
    action,
    remedy: semanticRemedy(server, first.item),
    when,
  };
};
