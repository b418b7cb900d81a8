import path from 'node:path';
import { LanegateError } from '../errors.js';
import { isObject, keepCorrupt, type RecordProblem, readRecord, recordsDir, writeAtomicAsync } from './atomic.js';

/**
 * records/observed-hazards.json (seed 000, durable contract 1, schema 1). Observations are kept
 * per launch identity and never moved or discarded across identities; invalidation happens on
 * READ (an identity with no record of its own reads as unobserved). The flat codes/count/lastSeen
 * beside the map are its union, for older readers. A missing file reads as "nothing observed yet";
 * a file that exists but cannot be read, parsed or schema-checked QUARANTINES the ledger: every
 * server counts as hazarded (dedicated) until an operator acts, and the quarantine is written into
 * the file so a restart keeps it.
 */
export const HAZARD_CODES = ['unroutable_server_request', 'unattributable_notification', 'tripwire'] as const;
export type HazardCode = (typeof HAZARD_CODES)[number];
export const isHazardCode = (c: unknown): c is HazardCode => typeof c === 'string' && (HAZARD_CODES as readonly string[]).includes(c);

export interface IdentityRecord {
  codes: HazardCode[];
  count: number;
  lastSeen: number;
}

export type LedgerData = Record<string, Record<string, IdentityRecord>>;

/** What every server reads as while the ledger is quarantined (never recorded by a host). */
export const LEDGER_UNREADABLE = 'ledger_unreadable';
export type LedgerCode = HazardCode | typeof LEDGER_UNREADABLE;

/** The ledger could not be read: kept in the file until an operator removes this key. */
export interface Quarantine {
  at: number;
  reason: string;
  copy?: string;
}

const QUARANTINE_REMEDY = (file: string): string =>
  `every server counts as hazarded (dedicated) until an operator acts: inspect the kept copy, then restore a good ledger or delete the "quarantined" key (or the whole file) in ${file} and restart`;

const validLedger = (j: unknown): string | undefined => {
  if (!isObject(j)) return 'not an object';
  if (j.schema !== 1) return `schema ${JSON.stringify(j.schema)} is not 1`;
  if (!isObject(j.servers)) return 'no "servers" object';
  if (j.quarantined !== undefined && !isObject(j.quarantined)) return '"quarantined" is not an object';
  return undefined;
};

const recordOf = (raw: unknown): IdentityRecord | undefined => {
  const r = raw as { codes?: unknown; count?: unknown; lastSeen?: unknown } | null;
  if (!r || typeof r !== 'object' || !Array.isArray(r.codes)) return undefined;
  const codes = [...new Set(r.codes.filter(isHazardCode))];
  if (codes.length === 0) return undefined;
  return { codes, count: typeof r.count === 'number' ? r.count : 1, lastSeen: typeof r.lastSeen === 'number' ? r.lastSeen : 0 };
};

/** Pure: file JSON → ledger. Unknown codes are dropped; a flat-only record becomes identity "". */
export const parseLedger = (json: unknown): LedgerData => {
  const j = json as { schema?: unknown; servers?: unknown } | undefined;
  if (j?.schema !== 1 || !j.servers || typeof j.servers !== 'object') return {};
  const out: LedgerData = {};
  for (const [name, raw] of Object.entries(j.servers as Record<string, unknown>)) {
    const s = raw as { identities?: unknown } & Record<string, unknown>;
    const ids: Record<string, IdentityRecord> = {};
    if (s.identities && typeof s.identities === 'object') {
      for (const [id, rec] of Object.entries(s.identities as Record<string, unknown>)) {
        const r = recordOf(rec);
        if (r) ids[id] = r;
      }
    } else {
      const flat = recordOf(s);
      if (flat) ids[''] = flat;
    }
    if (Object.keys(ids).length > 0) out[name] = ids;
  }
  return out;
};

/** Pure: ledger → file JSON, with the flat union written beside the map. */
export const serializeLedger = (data: LedgerData, quarantined?: Quarantine): object => ({
  schema: 1,
  ...(quarantined ? { quarantined } : {}),
  servers: Object.fromEntries(
    Object.entries(data).map(([name, ids]) => {
      const recs = Object.values(ids);
      return [
        name,
        {
          identities: ids,
          codes: [...new Set(recs.flatMap((r) => r.codes))],
          count: recs.reduce((n, r) => n + r.count, 0),
          lastSeen: Math.max(0, ...recs.map((r) => r.lastSeen)),
        },
      ];
    }),
  ),
});

export const ledgerFile = (stateDir: string): string => path.join(recordsDir(stateDir), 'observed-hazards.json');

/** The front's ledger: the single writer. Recording is in memory; flushing is async and loses nothing. */
export class Ledger {
  private data: LedgerData = {};
  private generation = 0;
  private flushedGeneration = 0;
  private flushing?: Promise<void>;
  /** Set while the ledger cannot be trusted: every server reads as hazarded. */
  quarantined?: Quarantine;
  /** Why the ledger is quarantined, for the log and the review (undefined when it is not). */
  problem?: RecordProblem;

  /** `keep`: the front copies a corrupt file aside and writes the quarantine into the next flush. */
  constructor(
    private readonly file: string,
    keep = false,
    now = Date.now() / 1000,
  ) {
    const r = readRecord(file, validLedger);
    if (r.status === 'ok') {
      this.data = parseLedger(r.json);
      const q = (r.json as { quarantined?: Partial<Quarantine> }).quarantined;
      if (q)
        this.quarantine({
          at: typeof q.at === 'number' ? q.at : now,
          reason: String(q.reason ?? 'unreadable'),
          ...(q.copy ? { copy: String(q.copy) } : {}),
        });
    } else if (r.status === 'corrupt') {
      const copy = keep ? keepCorrupt(file) : undefined;
      this.quarantine({ at: now, reason: r.reason, ...(copy ? { copy } : {}) });
      if (keep) this.generation += 1; // persist the quarantine: a restart must not read the next write as clean
    }
  }

  private quarantine(q: Quarantine): void {
    this.quarantined = q;
    this.problem = { file: this.file, reason: q.reason, ...(q.copy ? { copy: q.copy } : {}), remedy: QUARANTINE_REMEDY(this.file) };
  }

  record(server: string, identity: string, code: string, now: number): void {
    if (!isHazardCode(code)) throw new LanegateError('bad_request', `unknown hazard code "${code}" refused`);
    const ids = this.data[server] ?? {};
    const r = ids[identity] ?? { codes: [], count: 0, lastSeen: 0 };
    if (!r.codes.includes(code)) r.codes.push(code);
    r.count += 1;
    r.lastSeen = now;
    ids[identity] = r;
    this.data[server] = ids;
    this.generation += 1;
  }

  /** Codes observed under exactly this identity (the read that decides placement); all, if quarantined. */
  codesFor(server: string, identity: string): LedgerCode[] {
    const codes: LedgerCode[] = [...(this.data[server]?.[identity]?.codes ?? [])];
    return this.quarantined ? [...codes, LEDGER_UNREADABLE] : codes;
  }

  /** Every identity's record for a server (the review shows them all). */
  recordsOf(server: string): Record<string, IdentityRecord> {
    return this.data[server] ?? {};
  }

  /** The explicit operator path for dropping evidence of our own misattribution. */
  clear(server: string): void {
    delete this.data[server];
    this.generation += 1;
  }

  get dirty(): boolean {
    return this.generation !== this.flushedGeneration;
  }

  /**
   * Writes the ledger (temp, fsync, rename, fsync dir). The generation is captured with the
   * payload and the dirty mark is cleared only up to it, so an observation recorded while the
   * write was in flight is flushed next time. Resolves once everything recorded before the call
   * is durable.
   */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (!this.dirty) return;
    const gen = this.generation;
    const payload = `${JSON.stringify(serializeLedger(this.data, this.quarantined), null, 2)}\n`;
    this.flushing = writeAtomicAsync(this.file, payload).then(() => {
      this.flushedGeneration = gen;
    });
    try {
      await this.flushing;
    } finally {
      this.flushing = undefined;
    }
  }
}
