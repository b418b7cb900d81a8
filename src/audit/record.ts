/**
 * One audit record: a lane request that reached an upstream (through a host), as written to
 * <stateDir>/audit/<lane>.jsonl (each lane its own file: one lane's volume never rotates another's
 * history out), one JSON object per line. Arguments and results are never in it;
 * a SHA-256 of the arguments only when `gateway.audit.hashArguments` is on.
 */
export interface AuditRecord {
  /** When the request finished (ISO 8601, UTC). */
  time: string;
  lane: string;
  /** The lane token's id (jti): what `token revoke` names. */
  tokenId?: string;
  /** A reference to the handshake-era session (a hash of its id, never the id itself). */
  session?: string;
  server: string;
  method: string;
  /** The tool or prompt name, or the resource URI without its query and fragment (bounded). */
  name?: string;
  /** Where it ran, as the host reported it (absent when the call failed before an answer). */
  placement?: 'shared' | 'dedicated';
  pid?: number;
  outcome: 'ok' | 'tool_error' | 'error';
  /** For `error`: the JSON-RPC error code and a stable kind. */
  errorCode?: number;
  error?: string;
  durationMs: number;
  /** The lane's request body and the answer's result (or error), in bytes. */
  bytesIn: number;
  bytesOut: number;
  argsHash?: string;
}

/** What the audit file's reader accepts as a record (pure): the required fields, typed. */
export const isAuditRecord = (v: unknown): v is AuditRecord => {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const r = v as Record<string, unknown>;
  return (
    typeof r.time === 'string' &&
    !Number.isNaN(Date.parse(r.time)) &&
    typeof r.lane === 'string' &&
    typeof r.server === 'string' &&
    typeof r.method === 'string' &&
    (r.outcome === 'ok' || r.outcome === 'tool_error' || r.outcome === 'error') &&
    typeof r.durationMs === 'number' &&
    typeof r.bytesIn === 'number' &&
    typeof r.bytesOut === 'number'
  );
};

/** A marker line the writer leaves where it had to drop records (the disk could not keep up). */
export interface AuditGap {
  time: string;
  gap: { dropped: number };
}

export const isAuditGap = (v: unknown): v is AuditGap =>
  v !== null && typeof v === 'object' && typeof (v as AuditGap).time === 'string' && typeof (v as AuditGap).gap?.dropped === 'number';

/** A marker the writer leaves (in _gateway.jsonl) when a lane's oldest file is rotated out: its history before `before` is gone. */
export interface AuditRotation {
  time: string;
  rotated: { lane: string; bytes: number; before: string };
}

export const isAuditRotation = (v: unknown): v is AuditRotation =>
  v !== null &&
  typeof v === 'object' &&
  typeof (v as AuditRotation).time === 'string' &&
  typeof (v as AuditRotation).rotated?.lane === 'string' &&
  typeof (v as AuditRotation).rotated?.bytes === 'number';
