import assert from 'node:assert/strict';
import { cli, type RunningGateway } from './gateway.js';
import { modernPost, textOf } from './mcp.js';

/** A server's row in `lanegate review --json`, as the spot-check tests read it. */
export interface ReviewRow {
  server: string;
  placement: string;
  hazards: { current: boolean; record: { codes: string[] } }[];
}

/** One server's row of `lanegate review --json` against a running gateway (the CLI, as an operator runs it). */
export const reviewRow = async (gw: RunningGateway, server: string): Promise<ReviewRow | undefined> => {
  const r = await cli(['review', '--json', '--policy', gw.policyFile, '--url', gw.url]);
  return (JSON.parse(String(r.stdout)) as { servers: ReviewRow[] }).servers.find((s) => s.server === server);
};

/** How many spot checks a gateway's log shows for one server. */
export const spotChecks = (log: string, server: string): number =>
  log.split('\n').filter((l) => l.includes('"event":"spot_check"') && l.includes(`"server":"${server}"`)).length;

/** 2026-07-28 tools/calls of the lanes whose tokens are given, each of which must succeed: its text. Ids count up. */
export const laneCaller = (gw: () => RunningGateway, tokens: Record<string, string>) => {
  let id = 0;
  return async (lane: string, name: string, args: Record<string, unknown>): Promise<string> => {
    id += 1;
    const r = await modernPost(gw().url, tokens[lane] as string, id, 'tools/call', { name, arguments: args });
    assert.equal(r.json?.error, undefined, JSON.stringify(r.json));
    return textOf(r.json?.result);
  };
};
