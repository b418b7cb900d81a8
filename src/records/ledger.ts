import { writeFile, rename, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { LanegateError } from '../errors.js';
import { readJson, recordsDir } from './atomic.js';

/**
 * records/observed-hazards.json (seed 000, durable contract 1, schema 1). Observations are kept
 * per launch identity and never moved or discarded across identities; invalidation happens on
 * READ (an identity with no record of its own reads as unobserved). The flat codes/count/lastSeen
 * beside the map are its union, for older readers. A missing, corrupt or future file reads as
 * "nothing observed" — never as "safe" by itself: sharing still needs a demonstration.
 */
export const HAZARD_CODES = ['unroutable_server_request', 'unattributable_notification'] as const;
export type HazardCode = (typeof HAZARD_CODES)[number];
export const isHazardCode = (c: unknown): c is HazardCode => typeof c === 'string' && (HAZARD_CODES as readonly string[]).includes(c);

export interface IdentityRecord {
  codes: HazardCode[];
  count: number;
  lastSeen: number;
}

export type LedgerData = Record<string, Record<string, IdentityRecord>>;

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
export const serializeLedger = (data: LedgerData): object => ({
  schema: 1,
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
  private data: LedgerData;
  private generation = 0;
  private flushedGeneration = 0;
  private flushing?: Promise<void>;

  constructor(private readonly file: string) {
    this.data = parseLedger(readJson(file));
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

  /** Codes observed under exactly this identity (the read that decides placement). */
  codesFor(server: string, identity: string): HazardCode[] {
    return this.data[server]?.[identity]?.codes ?? [];
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
   * Writes the ledger. The generation is captured with the payload and the dirty mark is cleared
   * only up to it, so an observation recorded while the write was in flight is flushed next time.
   */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (!this.dirty) return;
    const gen = this.generation;
    const payload = `${JSON.stringify(serializeLedger(this.data), null, 2)}\n`;
    this.flushing = (async () => {
      await mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
      const tmp = `${this.file}.${process.pid}.tmp`;
      await writeFile(tmp, payload, { mode: 0o600, flush: true });
      await rename(tmp, this.file);
      this.flushedGeneration = gen;
    })();
    try {
      await this.flushing;
    } finally {
      this.flushing = undefined;
    }
  }
}
