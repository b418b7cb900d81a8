import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { memoryLink } from '../../src/link/memory.js';
import { LinePeer } from '../../src/rpc/peer.js';
import { RawResult, rawResultLine } from '../../src/rpc/raw.js';
import { JsonText } from '../../src/rpc/json-text.js';

/** Results that cross a link as text: read without a parse when the line has the peer's own form. */
describe('raw results on the link', () => {
  it('reads the id and the result text of a line a peer wrote, and nothing else', () => {
    const line = JSON.stringify({ jsonrpc: '2.0', id: 42, result: { content: [{ type: 'text', text: 'a "quoted" }' }] } });
    assert.deepEqual(rawResultLine(line), { id: 42, text: JSON.stringify({ content: [{ type: 'text', text: 'a "quoted" }' }] }) });
    for (const other of [
      JSON.stringify({ jsonrpc: '2.0', id: 'a', result: {} }), // a string id: parsed as usual
      JSON.stringify({ jsonrpc: '2.0', id: 3, error: { code: 1, message: 'x' } }),
      JSON.stringify({ id: 3, jsonrpc: '2.0', result: {} }), // another key order
      JSON.stringify({ jsonrpc: '2.0', id: 3, result: [] }), // not an object
      '{"jsonrpc":"2.0","id":3,"result":{}',
      '{"jsonrpc":"2.0","id":,"result":{}}',
    ])
      assert.equal(rawResultLine(other), undefined, other);
  });

  it('a raw request gets the host text unparsed; a plain request on the same link still gets an object', async () => {
    const { front, host } = memoryLink();
    const hostPeer = new LinePeer(host.input, host.output, {
      onRequest: (req) => (req.method === 'big' ? { content: [{ type: 'text', text: 'x'.repeat(100_000) }] } : { ok: req.method }),
    });
    const frontPeer = new LinePeer(front.input, front.output);
    const raw = await frontPeer.requestRaw('big', {}, 1000);
    assert.ok(raw instanceof RawResult);
    assert.equal(raw.text.length, 100_000 + JSON.stringify({ content: [{ type: 'text', text: '' }] }).length);
    assert.equal((raw.parsed().content as { text: string }[])[0]?.text.length, 100_000);
    assert.deepEqual(await frontPeer.request('small', {}, 1000), { ok: 'small' });
    hostPeer.close('done');
    frontPeer.close('done');
  });

  it('errors and timeouts of a raw request fail it as for any request', async () => {
    const { front, host } = memoryLink();
    new LinePeer(host.input, host.output, {
      onRequest: async (req) => {
        if (req.method === 'fail') throw new Error('upstream broke');
        await new Promise((r) => setTimeout(r, 200));
        return {};
      },
    });
    const frontPeer = new LinePeer(front.input, front.output);
    await assert.rejects(frontPeer.requestRaw('fail', {}, 1000), /upstream broke/);
    await assert.rejects(frontPeer.requestRaw('slow', {}, 20), /timed out/);
    frontPeer.close('done');
  });

  it('mayHave finds a key wherever a serialiser wrote it, and not a word inside a value', () => {
    const r = RawResult.of({ content: [{ type: 'text', text: 'resultType is a word here' }], nested: { resultType: 'x' } });
    assert.equal(r.mayHave('resultType'), true);
    assert.equal(RawResult.of({ content: [{ type: 'text', text: 'resultType: not a key' }] }).mayHave('resultType'), false);
  });
});

describe('JSON text on a newline-delimited link', () => {
  it('never holds a line break, and still means the same value', () => {
    const pretty = JSON.stringify({ a: 'x\ny', b: [1, { c: 'd\r\ne' }] }, null, 2);
    assert.ok(pretty.includes('\n'));
    const t = new JsonText(pretty);
    const text = t.parts.join('');
    assert.ok(!text.includes('\n') && !text.includes('\r'));
    assert.deepEqual(JSON.parse(text), JSON.parse(pretty));
  });

  it('a body with a message of its own after a newline stays one message on the link', async () => {
    const { front, host } = memoryLink();
    const seen: string[] = [];
    new LinePeer(host.input, host.output, {
      onRequest: (req) => {
        seen.push(req.method);
        return { got: req.params };
      },
    });
    const frontPeer = new LinePeer(front.input, front.output);
    const injected = '{"x":[\n{"jsonrpc":"2.0","id":1,"method":"evil","params":{}}\n,1]}';
    const raw = await frontPeer.requestRaw('fine', new JsonText(injected), 1000);
    assert.deepEqual(seen, ['fine'], 'only the one request reached the other end');
    assert.deepEqual((raw.parsed().got as { x: unknown[] }).x[0], { jsonrpc: '2.0', id: 1, method: 'evil', params: {} });
    frontPeer.close('done');
  });
});
