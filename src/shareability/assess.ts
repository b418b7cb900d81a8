import type { LedgerCode } from '../records/ledger.js';
import type { VerdictRow } from '../records/verdicts.js';
import { decidePlacement, type Placement, type PlacementAxis } from './placement.js';
import { describeDegradation } from './facets.js';

/** Evidence strength, strongest first. An observation outranks everything; an inference nothing. */
export const STRENGTHS = ['refuted', 'disqualified', 'declared', 'demonstrated', 'measured', 'no_objection', 'unknown'] as const;
export type Strength = (typeof STRENGTHS)[number];

export type ReasonCode =
  | 'observed_hazard'
  | 'demonstration_refuted'
  | 'principal_domain'
  | 'per_lane_secrets'
  | 'operator_pinned_dedicated'
  | 'per_lane_launch'
  | 'not_stdio'
  | 'declares_caller_identity'
  | 'preflight_passed'
  | 'preflight_not_run'
  | 'demonstration_passed'
  | 'handshake_not_reproducible'
  | 'no_probe'
  | 'degrades_when_shared'
  | 'restart_output_differs'
  | 'all_tools_read_only'
  | 'no_objection_found'
  | 'not_probed'
  | 'guard_refused'
  | 'guard_not_seen'
  | 'disabled';

/** A reason: a stable code (may leave the host) and an untranslated detail (never leaves it). */
export interface Reason {
  code: ReasonCode;
  grade: Strength | 'note' | 'supporting';
  detail: string;
}

export interface AssessInput {
  server: {
    name: string;
    share: 'auto' | 'never';
    perLaneLaunch: boolean;
    transport: 'stdio' | 'http';
    enabled: boolean;
    hasProbe: boolean;
  };
  domain: { name: string; kind: 'shared' | 'principal'; perLane: boolean };
  /** Hazard codes observed under the CURRENT launch identity. */
  hazards: readonly LedgerCode[];
  /** The verdict row valid for the current identity (already checked), if any. */
  row?: VerdictRow;
  guard: 'admitted' | 'refused' | 'unseen';
}

export interface Assessment {
  strength: Strength;
  reasons: Reason[];
  placement: Placement;
  refusedBy: PlacementAxis[];
  /** For each refusing axis, what would change the answer. */
  remedies: Partial<Record<PlacementAxis, string>>;
}

const rank = (s: Strength): number => STRENGTHS.indexOf(s);

type Note = (code: ReasonCode, grade: Reason['grade'], detail: string) => void;

/** What was observed, and what about the server or its domain rules sharing out whatever any probe shows. */
const structuralReasons = (i: AssessInput, r: Note): void => {
  for (const h of i.hazards) r('observed_hazard', 'refuted', h);
  for (const x of i.row?.demonstration?.refutations ?? [])
    r(
      'demonstration_refuted',
      'refuted',
      `${x.kind} in ${x.request}: ${x.detail}${x.standingSince !== undefined ? ' (stands from an earlier demonstration: the latest probe did not exercise it)' : ''}`,
    );
  if (i.domain.kind === 'principal') r('principal_domain', 'disqualified', i.domain.name);
  else if (i.domain.perLane) r('per_lane_secrets', 'disqualified', i.domain.name);
  if (i.server.share === 'never') r('operator_pinned_dedicated', 'disqualified', 'share: never');
  if (i.server.perLaneLaunch) r('per_lane_launch', 'disqualified', 'args or env name {lane}');
  if (i.server.transport !== 'stdio') r('not_stdio', 'disqualified', i.server.transport);
  if (!i.server.enabled) r('disabled', 'note', 'enabled: false');
};

/** What the verdict row of the current launch identity says: the pre-flight, the demonstration, their notes. */
const measuredReasons = (row: VerdictRow, r: Note): void => {
  const demo = row.demonstration;
  if (row.declaresCallerIdentity) r('declares_caller_identity', 'declared', 'lanegate/caller-identity');
  if (row.ran && !row.callerSensitive)
    r('preflight_passed', row.declaresCallerIdentity ? 'declared' : 'measured', 'handshake replayed identically for two callers');
  if (!row.ran) r('preflight_not_run', row.declaresCallerIdentity ? 'declared' : 'supporting', row.error ?? 'could not ask');
  if (row.ran && row.callerSensitive) r('handshake_not_reproducible', 'note', row.divergent.join(', '));
  if (demo?.passed)
    r(
      'demonstration_passed',
      'demonstrated',
      `scope ${demo.scope.length} of ${demo.coverage.listed} listed items: ${demo.scope.join(', ')}; any other request moves the lane making it to a dedicated child`,
    );
  for (const n of row.degradations ?? []) r('degrades_when_shared', 'note', describeDegradation(n));
  for (const n of demo?.notes ?? []) r('restart_output_differs', 'note', n);
};

/** The strongest grade among the reasons (notes and supporting ones do not count); none is unknown. */
const strengthOf = (reasons: Reason[]): Strength => {
  const graded = reasons.map((x) => x.grade).filter((g): g is Strength => (STRENGTHS as readonly string[]).includes(g));
  return graded.length === 0 ? 'unknown' : graded.reduce((a, b) => (rank(a) <= rank(b) ? a : b));
};

/** Where the server runs, the axes that refused sharing, and what would change each. */
const placementOf = (i: AssessInput): Pick<Assessment, 'placement' | 'refusedBy' | 'remedies'> => {
  const demo = i.row?.demonstration;
  const refuted = (demo?.refutations.length ?? 0) > 0;
  const decision = decidePlacement(
    { share: i.server.share, perLaneLaunch: i.server.perLaneLaunch },
    { kind: i.domain.kind, perLane: i.domain.perLane },
    {
      demonstrated: i.server.enabled && i.server.transport === 'stdio' && i.row?.ran === true && demo?.passed === true && !refuted,
      hazard: i.hazards.length > 0,
      guardAdmitted: i.guard === 'admitted',
    },
  );
  // A structural refusal (trust domain, per-lane launch, transport) makes the evidence axes moot:
  // listing them would send a reviewer after a probe that could never change the answer.
  const structural: PlacementAxis[] = ['trust_domain', 'operator', 'launch'];
  const decisive = decision.refusedBy.some((a) => a === 'trust_domain' || a === 'launch') || i.server.transport !== 'stdio';
  const refusedBy = decisive
    ? decision.refusedBy.filter((a) => structural.includes(a) || (i.server.transport !== 'stdio' && a === 'statelessness'))
    : decision.refusedBy;
  const remedies: Assessment['remedies'] = {};
  for (const axis of refusedBy) remedies[axis] = remedyFor(axis, i, refuted);
  return { placement: decision.placement, refusedBy, remedies };
};

/**
 * Evidence → strength, reasons and placement. Pure: no IO, no clock, no config reads; the
 * ordering is verified by unit tests, not by inspection.
 */
export const assess = (i: AssessInput): Assessment => {
  const reasons: Reason[] = [];
  const r: Note = (code, grade, detail) => {
    reasons.push({ code, grade, detail });
  };
  structuralReasons(i, r);
  const structurallyOut = i.domain.kind === 'principal' || i.domain.perLane || i.server.perLaneLaunch || i.server.transport !== 'stdio';
  if (i.row) measuredReasons(i.row, r);
  else if (!structurallyOut) r('not_probed', 'unknown', 'not measured under this launch identity');
  if (!i.server.hasProbe && !structurallyOut) r('no_probe', 'note', 'no probe declared: nothing can be demonstrated');
  if (i.row && !reasons.some((x) => x.grade !== 'note' && x.grade !== 'supporting'))
    r('no_objection_found', 'no_objection', 'nothing disqualifying was found');
  if (i.guard === 'refused') r('guard_refused', 'note', 'layer two refused the surface');
  if (i.guard === 'unseen') r('guard_not_seen', 'note', 'surface not scanned yet');
  const { placement, refusedBy, remedies } = placementOf(i);
  return { strength: strengthOf(reasons), reasons, placement, refusedBy, remedies };
};

const remedyFor = (axis: PlacementAxis, i: AssessInput, refuted: boolean): string => {
  const n = i.server.name;
  switch (axis) {
    case 'trust_domain':
      return i.domain.kind === 'principal'
        ? `none: principal domain "${i.domain.name}" never shares, structurally`
        : `none while trust domain "${i.domain.name}" reads per-lane secret files ({lane}): each lane's credential needs its own process`;
    case 'operator':
      return `set share: auto on servers.${n}`;
    case 'launch':
      return `drop {lane} from servers.${n} args/env so every lane runs the same launch`;
    case 'statelessness':
      if (i.server.transport !== 'stdio') return 'none: only stdio launches can be demonstrated and shared';
      if (refuted) {
        const reqs = [...new Set((i.row?.demonstration?.refutations ?? []).map((x) => x.request))].join(', ');
        return `a refutation stands for ${reqs} under this launch identity until a demonstration that exercises it passes (declare volatile paths if the difference is noise), or a changed launch gets a new identity`;
      }
      if (!i.server.hasProbe) return `declare servers.${n}.probe (lanegate draft-probe ${n} proposes one), then run lanegate measure`;
      return 'run lanegate measure (a passed demonstration is required); promotion happens when the host next starts';
    case 'ledger':
      return i.hazards.includes('ledger_unreadable')
        ? 'the hazard ledger is unreadable (quarantined): see the error naming records/observed-hazards.json, restore it or remove its "quarantined" key, and restart'
        : 'a hazard was observed under this launch identity: a new build or configuration is a new identity and starts clean';
    case 'guard':
      return i.guard === 'refused' ? `lanegate inspect ${n}` : 'the guard scans the surface at first use or measurement';
  }
};
