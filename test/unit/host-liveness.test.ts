import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { LinePeer } from '../../src/rpc/peer.js';

/** A host that stops answering is found out: pings over a real LinePeer, one side silent or not. */
describe('host liveness', () => {
  it('calls a host hung once it has answered no ping for the bound, and never a host that answers', async () => {
    process.env.LANEGATE_HOST_PING_MS = '40';
    process.env.LANEGATE_HOST_HUNG_MS = '300';
    const { watchLiveness } = await import(`../../src/front/hosts/liveness.js?t=${Date.now()}`);
    const pair = () => {
      const toHost = new PassThrough();
      const toFront = new PassThrough();
      return { front: new LinePeer(toFront, toHost), hostIn: toHost, hostOut: toFront };
    };
    // A silent host: it reads nothing and answers nothing.
    const silent = pair();
    silent.hostIn.resume();
    const hung: number[] = [];
    const stopSilent = watchLiveness(silent.front, (ms: number) => hung.push(ms));
    // A live host: a real peer that answers ping.
    const live = pair();
    new LinePeer(live.hostIn, live.hostOut, { onRequest: () => ({}) });
    const alsoHung: number[] = [];
    const stopLive = watchLiveness(live.front, (ms: number) => alsoHung.push(ms));
    await new Promise((r) => setTimeout(r, 900));
    stopSilent();
    stopLive();
    assert.equal(hung.length, 1, 'called once, not on every tick');
    assert.ok((hung[0] ?? 0) >= 300);
    assert.deepEqual(alsoHung, []);
    silent.front.close('done');
    live.front.close('done');
  });
});
