import type { Log } from '../log/lite.js';
import { META } from '../link/protocol.js';
import { ERR, RpcFailure } from '../rpc/jsonrpc.js';
import { Tripwire } from '../shareability/tripwire.js';
import type { UpstreamConn } from '../upstream/conn.js';
import type { ServerSlot } from './slot.js';

/**
 * The host's side of the tripwire (shareability/tripwire.ts): every request a lane sends to a
 * SHARED child is remembered, and every answer is checked before the front sees it. An answer
 * carrying text only another lane sent is withheld (the lane gets an error saying why and what to
 * do), and the server retreats and is recorded (`tripwire`) through `hazard`.
 */
export class TripwireWatch {
  private readonly wires = new Map<string, Tripwire>();

  constructor(private readonly d: { log: Log; hazard: (slot: ServerSlot, detail: string) => void }) {}

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
    return wire;
  }

  /** The answer, if it carries nothing only another lane sent; otherwise the withholding error is thrown. */
  checked<T>(wire: Tripwire | undefined, slot: ServerSlot, lane: string, answer: T): T {
    const leak = wire?.check(lane, answer);
    if (!leak) return answer;
    const server = slot.config.name;
    // The token is another lane's data: the log names who, never the text.
    this.d.log.warn(
      { event: 'tripwire', server, lane, from: leak.from, tokenLength: leak.token.length },
      `tripwire on shared "${server}": an answer to lane "${lane}" carried text only lane(s) ${leak.from.join(', ')} sent; withheld, retreating to dedicated`,
    );
    if (slot.placement === 'shared') this.d.hazard(slot, `answer to ${lane} carried text from ${leak.from.join(', ')}`);
    this.wires.delete(server);
    throw new RpcFailure({
      code: ERR.unavailable,
      message: `answer withheld by the tripwire: it carried text that another lane sent to the same shared "${server}" process. "${server}" now runs a process of its own for each lane and the hazard is recorded (lanegate review shows it); call again and it runs on yours`,
      data: { [META.absent]: 'tripwire' },
    });
  }
}
