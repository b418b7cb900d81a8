import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChildFrames } from '../../src/host/child-frames.js';
import { ProgressTokens } from '../../src/host/progress-tokens.js';
import { ResourceRelay } from '../../src/host/resource-relay.js';
import type { ServerSlot } from '../../src/host/slot.js';
import type { HostOut } from '../../src/link/protocol.js';
import type { Log } from '../../src/log/lite.js';
import type { ServerConfig } from '../../src/policy/model.js';

/** A shared child's frames, with what reached the front and how often the child was retreated. */
const rig = () => {
  const notes: { method: string; params: Record<string, unknown> }[] = [];
  let retreats = 0;
  const out = {
    notify: (method: string, params: Record<string, unknown>) => notes.push({ method, params }),
    request: async () => ({}),
  } as unknown as HostOut;
  const log: Log = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
  const slot = {
    config: { name: 'every', prefix: 'every', domain: 'public' } as ServerConfig,
    placement: 'shared',
    retreat: async () => {
      retreats += 1;
    },
  } as unknown as ServerSlot;
  const progress = new ProgressTokens();
  const frames = new ChildFrames({
    slot: () => slot,
    out,
    progress,
    resources: new ResourceRelay(() => 1000),
    log,
    onListChanged: () => {},
    onRetreated: () => {},
  });
  return { frames, progress, notes, retreats: () => retreats };
};
const shared = { lanes: ['research', 'alice'], contested: true, era: 'legacy' as const, key: 'shared|legacy' };
const progressOf = (token: string) => ({
  jsonrpc: '2.0' as const,
  method: 'notifications/progress',
  params: { progressToken: token, progress: 1 },
});

describe('progress after its call ended (attack round 8, finding 1)', () => {
  it('a late progress line of a call that ended is dropped: no hazard, nothing reaches any lane', () => {
    const r = rig();
    const sent = r.progress.track('research', 'lgp-1', shared.key);
    assert.equal(sent, 'lgp-1');
    r.frames.notification('every', shared, progressOf('lgp-1'));
    assert.equal(r.notes.filter((n) => n.method === 'lanegate/notify').length, 1, 'in flight: to its call');
    r.progress.release(sent);
    r.frames.notification('every', shared, progressOf('lgp-1'));
    r.frames.notification('every', shared, progressOf('lgp-1'));
    assert.equal(r.retreats(), 0, 'no retreat for a known call that ended');
    assert.equal(r.notes.filter((n) => n.method === 'lanegate/hazard').length, 0);
    assert.equal(r.notes.filter((n) => n.method === 'lanegate/notify').length, 1, 'the late lines reach nobody');
  });

  it('a token never handed out, or an ended call of another child, is still a hazard', () => {
    const r = rig();
    r.frames.notification('every', shared, progressOf('lgp-77'));
    assert.equal(r.retreats(), 1);
    const other = rig();
    other.progress.release(other.progress.track('bob', 'lgp-5', 'bob|legacy'));
    other.frames.notification('every', shared, progressOf('lgp-5'));
    assert.equal(other.retreats(), 1, "the token of bob's own child, said by the shared child, is foreign");
  });

  it('remembers a bounded number of abandoned calls (never answered ones), and a token handed out again is live again', () => {
    const p = new ProgressTokens();
    const first = p.track('research', 'lgp-1');
    p.release(first);
    assert.equal(p.retiredCall('lgp-1')?.lane, 'research');
    // Calls answered normally are not remembered: a lane's ordinary traffic pushes nothing out.
    for (let i = 2; i < 100_000; i += 1) p.release(p.track('research', `lgp-${i}`), false);
    assert.equal(p.retiredCall('lgp-1')?.lane, 'research', 'still remembered after 100,000 answered calls');
    assert.equal(p.retiredCall('lgp-99999'), undefined);
    for (let i = 100_000; i < 170_000; i += 1) p.release(p.track('research', `lgp-${i}`));
    assert.equal(p.retiredCall('lgp-1'), undefined, 'the oldest abandoned one is forgotten past the bound (65,536)');
    assert.equal(p.retiredCall('lgp-169999')?.lane, 'research');
    p.track('alice', 'lgp-169999');
    assert.equal(p.retiredCall('lgp-169999'), undefined);
    assert.equal(p.owner('lgp-169999')?.lane, 'alice');
  });

  it("a token of a call in flight on another child attributes nothing: its progress never reaches that call's lane", () => {
    const r = rig();
    r.progress.track('carol', 'lgp-101', 'carol|legacy');
    r.frames.notification('every', shared, progressOf('lgp-101'));
    assert.equal(r.notes.filter((n) => n.method === 'lanegate/notify').length, 0, "not delivered to carol's call");
    assert.equal(r.retreats(), 1, 'a contested shared child naming another child’s token is a hazard');
    assert.equal(r.progress.owner('lgp-101', 'carol|legacy')?.lane, 'carol');
  });
});
