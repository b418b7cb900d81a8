import { LanegateError } from '../errors.js';
import { shellQuote } from '../log/escape.js';
import { RpcFailure } from '../rpc/jsonrpc.js';
import type { Absence, AbsenceCode } from './protocol.js';

/** What an error says happened to an upstream, as data: its kind, or a refused command (a start that cannot succeed). */
const kindOfError = (e: unknown): AbsenceCode | undefined => {
  if (e instanceof LanegateError) return e.kind ?? (e.code === 'upstream_refused' ? 'start_failed' : undefined);
  return e instanceof RpcFailure ? e.kind : undefined;
};

/** The absence an error stands for: its code (the kind the error carries), and its words for people. Pure. */
export const absenceOfError = (e: unknown): Omit<Absence, 'server'> => {
  const reason = e instanceof LanegateError ? e.detail : e instanceof Error ? e.message : 'unavailable';
  return { code: kindOfError(e) ?? 'unavailable', reason };
};

/** Whether an absence lasts until an operator acts (retrying cannot help). */
export const lastsUntilOperatorActs = (code: AbsenceCode): boolean => code === 'refused' || code === 'collision' || code === 'drift';

/** The remedy an operator runs for an absence. Pure. */
export const remedyForAbsence = (server: string, a: Pick<Absence, 'code' | 'item'>): string => {
  // Quoted: the item is an upstream's (or, on a lane's own child, a lane's) choice, and this is pasted.
  // A name too long to paste (a lane can choose one on its own child) is left to inspect to list.
  const tool = a.item && a.item.length <= 200 ? ` --tool ${shellQuote(a.item)}` : '';
  const s = shellQuote(server);
  switch (a.code) {
    case 'refused':
      return `lanegate inspect ${s}${tool}; after review: lanegate trust ${s}${tool} --reviewed-by <you>`;
    case 'crashed':
      return `restarts automatically with backoff; if it keeps crashing, read the gateway log (event upstream_crashed) and fix servers.${server}`;
    case 'start_failed':
      return `npx lanegate check --launch starts servers.${server} once and shows why it fails (also in lanegate status and the gateway log, event upstream_start_failed)`;
    case 'collision':
      return `the upstream lists names that would collide; fix the server or change servers.${server}.prefix`;
    case 'drift':
      return `lanegate review; accept the new inventory by editing servers.${server}.expect`;
    default:
      return 'lanegate review, and the gateway log';
  }
};
