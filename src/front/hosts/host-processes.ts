import { LINK } from '../../link/protocol.js';
import type { HostManager } from './hosts.js';

/** A child process as its host reports it. */
export interface ChildProcess {
  server: string;
  placement: 'shared' | 'dedicated';
  lane?: string;
  /** For a shared child: the lanes on it now. */
  lanes?: string[];
  era: string;
  pid: number;
}

/**
 * Every running host with the children it reports, asked once (one `lanegate/processes` per
 * host). The operator API, the review rows, the status and the gauges all read this.
 */
export const hostProcesses = async (
  hosts: HostManager,
  timeoutMs = 3000,
): Promise<{ key: string; pid: number; children: ChildProcess[] }[]> => {
  const out: { key: string; pid: number; children: ChildProcess[] }[] = [];
  for (const [key, pid] of Object.entries(hosts.pids())) {
    if (pid === undefined) continue;
    const r = await hosts.request(key, LINK.processes, {}, timeoutMs).catch(() => ({ processes: [] }));
    out.push({ key, pid, children: (r.processes as ChildProcess[] | undefined) ?? [] });
  }
  return out;
};
