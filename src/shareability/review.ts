import type { Policy } from '../policy/model.js';
import type { GuardFile } from '../records/guard-file.js';
import { type IdentityRecord, LEDGER_UNREADABLE, type LedgerCode, type LedgerData } from '../records/ledger.js';
import { currentRow, type VerdictFile } from '../records/verdicts.js';
import { type Assessment, assess } from './assess.js';
import { lanesWithServer } from '../policy/queries.js';

export interface ReviewRow {
  server: string;
  domain: string;
  kind: 'shared' | 'principal';
  prefix: string;
  lanes: string[];
  identity: string;
  placement: Assessment['placement'];
  strength: Assessment['strength'];
  reasons: Assessment['reasons'];
  refusedBy: { axis: string; remedy: string }[];
  coverage?: { exercised: string[]; listed: number };
  /** What the demonstration covers: a shared child runs only these requests (empty: none). */
  scope: string[];
  /** Requests refuted under this identity (standing ones included): never inside the scope. */
  refuted: string[];
  /** Only from a running gateway: lanes on the shared child now, lanes moved off it and by what. */
  live?: {
    sharedLanes: string[];
    escalations: { lane: string; request: string; at: number }[];
    /** What the running host runs now (it takes a new placement live, within moments of a pass). */
    runningPlacement?: 'shared' | 'dedicated';
    /** When the running host promoted the server or retreated it live, and the lanes moved onto its shared child. */
    promotedAt?: number;
    retreatedAt?: number;
    joined?: { lane: string; at: number }[];
  };
  measuredAt?: number;
  reportedVersion?: string;
  guard: 'admitted' | 'refused' | 'unseen';
  /** Lanes the front withholds the server from: what only each lane's whole catalog (across hosts) shows. */
  withheld?: { lane: string; tool: string; finding: string; matched: string }[];
  drift?: string;
  /** Ledger entries per launch identity; `current` marks the identity in force. */
  hazards: { identity: string; current: boolean; record: IdentityRecord }[];
}

export interface ReviewInputs {
  policy: Policy;
  identities: Record<string, string>;
  ledger: LedgerData;
  /** The ledger file could not be read: every server counts as hazarded. */
  ledgerQuarantined?: boolean;
  verdicts: VerdictFile;
  guard: GuardFile;
  liveVersions: Record<string, string>;
  /** Declared-inventory drift lines per server, when the gateway has seen any. */
  inventory?: Record<string, string>;
}

/** The lanes whose catalog withholds the server, from the guard records (lanes that no longer have it are not said). */
const withheldOf = (policy: Policy, guard: GuardFile, server: string): Pick<ReviewRow, 'withheld'> => {
  const byLane = Object.entries(guard.catalog?.[server] ?? {}).filter(([lane]) => policy.lanes[lane]?.servers.includes(server));
  if (byLane.length === 0) return {};
  return {
    withheld: byLane.map(([lane, r]) => ({ lane, tool: r.refusal.tool, finding: r.refusal.finding, matched: r.refusal.matched })),
  };
};

/**
 * The rows a security reviewer reads, built from records loaded ONCE by the caller: no IO per
 * row, and every row of one payload sees the same files. Pure.
 */
export const buildReview = (i: ReviewInputs): ReviewRow[] =>
  Object.values(i.policy.servers).map((s) => {
    const domain = i.policy.domains[s.domain] ?? { name: s.domain, kind: 'principal' as const, perLane: true, secrets: [] };
    const identity = i.identities[s.name] ?? '';
    const { row } = currentRow(i.verdicts.entries[s.name], identity, i.liveVersions[s.name]);
    const ledger = i.ledger[s.name] ?? {};
    const g = i.guard.servers[s.name];
    const guard = g ? g.status : 'unseen';
    const a = assess({
      server: {
        name: s.name,
        share: s.share,
        perLaneLaunch: s.perLaneLaunch,
        transport: s.transport.kind,
        enabled: s.enabled,
        hasProbe: (s.probe?.length ?? 0) > 0,
      },
      domain: { name: domain.name, kind: domain.kind, perLane: domain.perLane },
      hazards: [...(ledger[identity]?.codes ?? []), ...(i.ledgerQuarantined ? [LEDGER_UNREADABLE] : [])] as LedgerCode[],
      ...(row ? { row } : {}),
      guard,
    });
    return {
      server: s.name,
      domain: domain.name,
      kind: domain.kind,
      prefix: s.prefix,
      lanes: lanesWithServer(i.policy, s.name),
      identity,
      placement: a.placement,
      strength: a.strength,
      reasons: a.reasons,
      refusedBy: a.refusedBy.map((axis) => ({ axis, remedy: a.remedies[axis] ?? '' })),
      ...(row?.demonstration ? { coverage: row.demonstration.coverage } : {}),
      scope: a.placement === 'shared' ? (row?.demonstration?.scope ?? []) : [],
      refuted: [...new Set((row?.demonstration?.refutations ?? []).map((x) => x.request))],
      ...(row ? { measuredAt: row.evaluatedAt } : {}),
      ...(row?.reportedVersion ? { reportedVersion: row.reportedVersion } : {}),
      guard,
      ...withheldOf(i.policy, i.guard, s.name),
      ...(i.inventory?.[s.name] ? { drift: i.inventory[s.name] } : {}),
      hazards: Object.entries(ledger).map(([id, record]) => ({ identity: id, current: id === identity, record })),
    };
  });
