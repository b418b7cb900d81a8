import type { Log } from '../log/lite.js';
import { META } from '../link/protocol.js';
import { ERR, RpcFailure } from '../rpc/jsonrpc.js';
import { type Leak, stringsOf, Tripwire, tokensOf } from '../shareability/tripwire.js';
import type { UpstreamConn } from '../upstream/conn.js';
import type { ServerSlot } from './slot.js';

type Params = Record<string, unknown>;

export interface TripwireDeps {
  log: Log;
  /** Record, recycle, retreat (the hazard path). */
  hazard: (slot: ServerSlot, detail: string) => void;
  /** The same request on a FRESH scratch process of the server (none: every suspect is a leak). */
  replay?: ((slot: ServerSlot, method: string, params: Params) => Promise<unknown>) | undefined;
}

/**
 * The host's side of the tripwire (shareability/tripwire.ts): every request a lane sends to a
 * SHARED child is remembered, and every answer is checked before the front sees it. A suspect (a
 * token only another lane sent) is confirmed by replaying the request on a fresh process: text
 * that process says too is the server's own. A confirmed leak is withheld (the lane gets an error
 * saying why and what to do) and the server retreats and is recorded (`tripwire`) through `hazard`.
 * A replay that cannot run confirms (fail closed).
 */
export class TripwireWatch {
  private readonly wires = new Map<string, Tripwire>();
  /** Calls to each server's shared child so far (spot checks run only where calls were made). */
  readonly calls = new Map<string, number>();
  /** One confirmation at a time per server. */
  private readonly confirming = new Map<string, Promise<unknown>>();

  constructor(private readonly d: TripwireDeps) {}

  /** The lane's request is about to go to `conn`: remembered if that is a shared child. */
  sent(slot: ServerSlot, lane: string, conn: UpstreamConn, params: unknown): Tripwire | undefined {
    if (slot.placement !== 'shared' || slot.sharedConn(conn.modern ? 'modern' : 'legacy') !== conn) return undefined;
    const server = slot.config.name;
    let wire = this.wires.get(server);
    if (!wire) {
      wire = new Tripwire();
      this.wires.set(server, wire);
    }
    wire.sent(lane, params);
    this.calls.set(server, (this.calls.get(server) ?? 0) + 1);
    return wire;
  }

  /** The answer, if it carries nothing only another lane sent; otherwise the withholding error is thrown. */
  async checked<T>(wire: Tripwire | undefined, slot: ServerSlot, lane: string, method: string, params: Params, answer: T): Promise<T> {
    const suspects = wire?.suspects(lane, answer) ?? [];
    if (!wire || suspects.length === 0) return answer;
    const leaks = await this.confirm(wire, slot, method, params, suspects);
    if (leaks.length === 0) return answer;
    const server = slot.config.name;
    const from = [...new Set(leaks.flatMap((l) => l.from))].sort();
    // The tokens are other lanes' data: the log names who, never the text.
    this.d.log.warn(
      { event: 'tripwire', server, lane, from, tokens: leaks.length },
      `tripwire on shared "${server}": an answer to lane "${lane}" carried text only lane(s) ${from.join(', ')} sent; withheld, retreating to dedicated`,
    );
    if (slot.placement === 'shared') this.d.hazard(slot, `answer to ${lane} carried text from ${from.join(', ')}`);
    this.wires.delete(server);
    throw new RpcFailure({
      code: ERR.unavailable,
      message: `answer withheld by the tripwire: it carried text that another lane sent to the same shared "${server}" process. "${server}" now runs a process of its own for each lane and the hazard is recorded (lanegate review shows it); call again and it runs on yours`,
      data: { [META.absent]: 'tripwire' },
    });
  }

  /** The suspects a fresh process does NOT say for the same request (absolving the ones it does). */
  private async confirm(wire: Tripwire, slot: ServerSlot, method: string, params: Params, suspects: Leak[]): Promise<Leak[]> {
    const server = slot.config.name;
    if (!this.d.replay || slot.placement !== 'shared') return suspects;
    const replay = this.d.replay;
    const before = this.confirming.get(server) ?? Promise.resolve();
    const run = before.then(async () => {
      const { _meta: _, ...plain } = params;
      const again = await replay(slot, method, plain);
      const said = new Set<string>();
      stringsOf(again, (s) => {
        for (const t of tokensOf(s)) said.add(t);
        return true;
      });
      return said;
    });
    this.confirming.set(
      server,
      run.catch(() => undefined),
    );
    let said: Set<string>;
    try {
      said = await run;
    } catch (e) {
      this.d.log.warn(
        { event: 'tripwire_replay_failed', server, detail: e instanceof Error ? e.message.slice(0, 200) : 'failed' },
        'could not confirm a tripwire suspect on a fresh process; counting it as a leak',
      );
      return suspects;
    }
    const left = suspects.filter((l) => !said.has(l.token));
    for (const l of suspects) if (said.has(l.token)) wire.absolve(l.token);
    if (left.length < suspects.length)
      this.d.log.info(
        { event: 'tripwire_absolved', server, tokens: suspects.length - left.length },
        'a fresh process said it too: the server’s own text',
      );
    return left;
  }
}

/** A replay on a fresh scratch process of a lane-independent stdio server, stopped after its answer. */
export const replayOn =
  (scratch: (server: ServerSlot['config'], tag: string) => Promise<UpstreamConn>) =>
  async (slot: ServerSlot, method: string, params: Params): Promise<unknown> => {
    if (slot.config.transport.kind !== 'stdio' || slot.config.perLaneLaunch) throw new Error('no fresh process for this transport');
    const conn = await scratch(slot.config, 'tripwire-replay');
    try {
      return await conn.request(method, params, slot.config.callTimeoutMs);
    } finally {
      await conn.stop();
    }
  };
