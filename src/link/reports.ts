import type { diffSurfaces } from '../guard/hash.js';
import type { Refusal } from '../guard/refusal.js';
import type { Finding, Surface } from '../guard/scanner.js';

/** What a host's guard tells the front about one upstream's surface (lanegate/guard). */
export interface GuardReport {
  server: string;
  status: 'admitted' | 'refused';
  surfaceHash: string;
  pinnedHash?: string;
  surface: Surface;
  findings: Finding[];
  trusted: Finding[];
  itemHashes: Record<string, string>;
  drift?: { from: string; to: string; changes: ReturnType<typeof diffSurfaces> };
  refusal?: Refusal;
  /**
   * Set when the surface came from a lane's own child: the judgment is that lane's alone (its
   * child's surface may hold what the lane itself put there, such as session resources).
   */
  lane?: string;
  /** The client capabilities the child that showed this surface was offered (see surfaceProfile). */
  profile?: string;
}

/** A pre-flight's outcome as a host reports it to the front (part of lanegate/measure's answer). */
export interface PreflightOutcome {
  ran: boolean;
  callerSensitive: boolean;
  divergent: string[];
  declaresCallerIdentity: boolean;
  degradations: string[];
  reportedVersion?: string;
  error?: string;
}
