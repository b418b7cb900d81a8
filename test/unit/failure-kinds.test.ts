import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { LanegateError } from '../../src/errors.js';
import { absenceOfError } from '../../src/link/absence.js';
import { RpcEndpoint } from '../../src/rpc/endpoint.js';
import { ERR, RpcFailure } from '../../src/rpc/jsonrpc.js';
import { LinePeer } from '../../src/rpc/peer.js';
import { noteFailure, type RestartRecord } from '../../src/supervision/restart.js';
import { importGraph } from '../helpers/import-graph.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('what happened to an upstream travels as data', () => {
  it('an error that carries its kind is that absence, whatever its words say', () => {
    const failedStart = new LanegateError('upstream_unavailable', 'upstream "x" crashed (exit 3); restarting in 1s', {
      kind: 'start_failed',
    });
    assert.equal(absenceOfError(failedStart).code, 'start_failed');
    assert.equal(absenceOfError(failedStart).reason, 'upstream "x" crashed (exit 3); restarting in 1s', 'the words are kept for people');
    assert.equal(absenceOfError(new LanegateError('upstream_unavailable', 'upstream "x" is gone', { kind: 'crashed' })).code, 'crashed');
    assert.equal(absenceOfError(new RpcFailure({ code: ERR.unavailable, message: 'link closed' }, 'crashed')).code, 'crashed');
    assert.equal(absenceOfError(new LanegateError('upstream_refused', 'command /bin/x is not allowed')).code, 'start_failed');
    assert.equal(absenceOfError('weird').code, 'unavailable');
  });

  it("an error's words decide nothing: without a kind it is only unavailable", () => {
    for (const words of ['upstream "x" crashed (exit 3)', 'failed to start', 'the server says: restarting, process exited'])
      assert.equal(absenceOfError(new RpcFailure({ code: ERR.internal, message: words })).code, 'unavailable', words);
    assert.equal(
      absenceOfError(new LanegateError('upstream_unavailable', 'upstream "x" failed to start: spawn error')).code,
      'unavailable',
    );
  });

  it('a LanegateError keeps its cause as before, and has no kind unless given one', () => {
    const cause = new Error('root');
    const e = new LanegateError('internal', 'x', { cause });
    assert.equal(e.cause, cause);
    assert.equal(e.kind, undefined);
    assert.equal('cause' in new LanegateError('internal', 'y'), false);
  });

  it("a link's pending requests, and any request after it closed, fail with the kind its closer gave", async () => {
    const e = new RpcEndpoint(() => undefined);
    const pending = e.request('tools/list', {}, 0);
    e.close('gone', 'crashed');
    await assert.rejects(pending, (err: RpcFailure) => err instanceof RpcFailure && err.kind === 'crashed' && err.message === 'gone');
    await assert.rejects(e.request('tools/list', {}, 0), (err: RpcFailure) => err.kind === 'crashed');
    const plain = new RpcEndpoint(() => undefined);
    const p2 = plain.request('tools/list', {}, 0);
    plain.close('link closed');
    await assert.rejects(p2, (err: RpcFailure) => err.kind === undefined);
  });

  it("a line peer whose output ends fails its pending requests with the handlers' end kind", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    output.resume();
    const peer = new LinePeer(input, output, { endReason: 'child ended', endKind: 'crashed' });
    const pending = peer.request('tools/list', {}, 0);
    input.end();
    await assert.rejects(pending, (err: RpcFailure) => err.kind === 'crashed' && err.message === 'child ended');
    assert.equal(absenceOfError(await pending.catch((x: unknown) => x)).code, 'crashed');
  });

  it('an ended output fails its requests only once its end is accounted for (a child: its exit seen), and at most a second late', async () => {
    const output = new PassThrough();
    output.resume();
    let exit!: () => void;
    const exited = new Promise<void>((r) => (exit = r));
    const input = new PassThrough();
    const peer = new LinePeer(input, output, { endReason: 'child ended', endKind: 'crashed', endSettles: exited });
    let failed = false;
    const pending = peer.request('tools/list', {}, 0).catch((e: unknown) => {
      failed = true;
      return e;
    });
    input.end();
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(failed, false, 'not before the exit is seen');
    exit();
    assert.equal(((await pending) as RpcFailure).kind, 'crashed');

    // An output closed by a process that lives on (its exit never comes) still fails, after the bound.
    const input2 = new PassThrough();
    const stuck = new LinePeer(input2, output, { endReason: 'child ended', endKind: 'crashed', endSettles: new Promise(() => undefined) });
    const t0 = Date.now();
    const pending2 = stuck.request('tools/list', {}, 0);
    input2.end();
    await assert.rejects(pending2, (err: RpcFailure) => err.kind === 'crashed');
    const waited = Date.now() - t0;
    assert.ok(waited >= 900 && waited < 5000, `failed after ${waited} ms`);
  });

  it('the restart bookkeeping keeps the kind of the last failure, and forgets it on one without', () => {
    const r: RestartRecord = { crashes: 0, retryAt: 0, startedAt: 0 };
    noteFailure(r, 'failed to start (spawn error)', 1000, 'start_failed');
    assert.equal(r.lastKind, 'start_failed');
    assert.equal(r.crashes, 1);
    noteFailure(r, 'crashed (exit 1)', 2000, 'crashed');
    assert.equal(r.lastKind, 'crashed');
    noteFailure(r, 'failed', 3000);
    assert.equal(r.lastKind, undefined);
  });
});

/** Inline JSON-RPC codes left in files another branch is changing; the lead moves them to ERR after the merge. */
const STILL_INLINE: Record<string, number> = {};

describe('every JSON-RPC error code comes from one table', () => {
  it('ERR names each code once', () => {
    const codes = Object.values(ERR);
    assert.equal(new Set(codes).size, codes.length, 'two names for one code');
  });

  it('no other file in src/ writes a JSON-RPC error code as a number (comments aside)', () => {
    const found: Record<string, number> = {};
    for (const file of importGraph(join(repo, 'src'), repo).keys()) {
      if (file === 'src/rpc/jsonrpc.ts') continue;
      const code = readFileSync(join(repo, file), 'utf8')
        .split('\n')
        .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line))
        .join('\n');
      const n = (code.match(/-32[0-9]{3}\b/g) ?? []).length;
      if (n > 0) found[relative('.', file)] = n;
    }
    assert.deepEqual(found, STILL_INLINE);
  });
});
