import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FIXTURE, policyHead, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { legacySession, listenRequest, modernMeta, modernPost, textOf } from '../helpers/mcp.js';
import { sleep } from '../helpers/procs.js';

const POLICY = `${policyHead()}
trustDomains: { public: { kind: shared } }
servers:
  fix: { prefix: fix, domain: public, stdio: { command: node, args: ["${FIXTURE}", "--name", "fix"] } }
  rooty: { prefix: rooty, domain: public, stdio: { command: node, args: ["${FIXTURE}", "--name", "rooty", "--ask-roots"] } }
  other: { prefix: other, domain: public, stdio: { command: node, args: ["${FIXTURE}", "--name", "other"] } }
lanes:
  a: { servers: [fix] }
  b: { servers: [other] }
  c: { servers: [rooty] }
`;

const withCaps = { ...modernMeta, 'io.modelcontextprotocol/clientCapabilities': { sampling: {} } };

// One gateway for both parts: neither needs a fresh one (each lane has its own server, and the
// list change is lane a's catalog changing after its child is up, whether or not it ran calls before).
describe('MRTR and listen on one gateway', () => {
  let gw: RunningGateway;
  before(async () => {
    gw = await startGateway(POLICY);
  });
  after(async () => gw.stop());

  describe("a legacy upstream's sampling request during a modern lane's call completes through MRTR", () => {
    let ta: string;
    let tb: string;
    before(async () => {
      ta = await gw.token('a');
      tb = await gw.token('b');
    });

    it('input_required, then the retry with inputResponses resumes the parked upstream call', async () => {
      const first = await modernPost(gw.url, ta, 1, 'tools/call', { name: 'fix_ask', arguments: {}, _meta: withCaps });
      const r1 = first.json?.result as { resultType: string; inputRequests: Record<string, { method: string }>; requestState: string };
      assert.equal(r1.resultType, 'input_required');
      const [key, ask] = Object.entries(r1.inputRequests)[0] ?? [];
      assert.equal(ask?.method, 'sampling/createMessage');
      const answer = { role: 'assistant', model: 'm', content: { type: 'text', text: 'seven' } };
      /** The retry of the call, with the answer, under `token` and the requestState given. */
      const retry = (token: string, id: number, requestState: string) =>
        modernPost(gw.url, token, id, 'tools/call', {
          name: 'fix_ask',
          arguments: {},
          requestState,
          inputResponses: { [String(key)]: answer },
          _meta: withCaps,
        });
      const stolen = await retry(tb, 2, r1.requestState);
      assert.equal(stolen.status, 400, "another lane's requestState is refused");
      // Refused as another call's state would be: the words do not tell b that the state is some other lane's.
      assert.match(String((stolen.json?.error as { message?: string } | undefined)?.message), /requestState is not valid for this call/);
      const tampered = await retry(ta, 3, `${r1.requestState}x`);
      assert.equal(tampered.status, 400);
      assert.match(String((tampered.json?.error as { message?: string } | undefined)?.message), /integrity/);
      const done = await retry(ta, 4, r1.requestState);
      assert.equal((done.json?.result as { resultType?: string } | undefined)?.resultType, 'complete');
      assert.match(textOf(done.json?.result), /seven/);
      const replay = await retry(ta, 5, r1.requestState);
      assert.equal(replay.status, 400, 'a requestState is one-shot');
    });

    it('a lane that did not declare sampling gets -32021, not a question it cannot answer', async () => {
      const r = await modernPost(gw.url, ta, 6, 'tools/call', { name: 'fix_ask', arguments: {} });
      assert.equal(r.status, 400);
      assert.equal((r.json?.error as { code?: number } | undefined)?.code, -32021);
    });

    it("an upstream's unprompted roots/list does not fail the call of a lane that declared no roots", async () => {
      // The upstream asks roots/list before it answers its first call, whatever that call is.
      const tc = await gw.token('c');
      const r = await modernPost(gw.url, tc, 7, 'tools/call', { name: 'rooty_echo', arguments: { text: 'still here' } });
      assert.equal(r.status, 200);
      assert.equal((r.json?.result as { resultType?: string } | undefined)?.resultType, 'complete');
      assert.equal(textOf(r.json?.result), 'still here');
      const seen = await modernPost(gw.url, tc, 8, 'tools/call', { name: 'rooty_roots_seen', arguments: {} });
      assert.match(textOf(seen.json?.result), /^error: /, 'the upstream heard a refusal, not silence');
    });
  });

  describe('list_changed reaches exactly the lanes whose catalog changed, in both eras', () => {
    const collect = async (res: Response, into: string[], ms: number): Promise<void> => {
      const reader = res.body?.getReader();
      if (!reader) return;
      const dec = new TextDecoder();
      const stop = setTimeout(() => void reader.cancel(), ms);
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          for (const m of dec.decode(value).matchAll(/data: (.*)\n/g))
            into.push(String((JSON.parse(m[1] ?? '{}') as { method?: string }).method));
        }
      } catch {
        // cancelled at the deadline
      } finally {
        clearTimeout(stop);
      }
    };

    it('modern subscriptions/listen and legacy GET streams of lane a see it; lane b sees nothing', async () => {
      const ta = await gw.token('a');
      const tb = await gw.token('b');
      const listen = (t: string) => listenRequest(gw.url, t, 'sub-1', { toolsListChanged: true });
      const legacyGet = async (t: string) => {
        const h = await legacySession(gw.url, t);
        return fetch(gw.url, {
          headers: { authorization: h.authorization ?? '', accept: 'text/event-stream', 'mcp-session-id': h['mcp-session-id'] ?? '' },
        });
      };
      await modernPost(gw.url, ta, 1, 'tools/list');
      await modernPost(gw.url, tb, 1, 'tools/list');
      const seen: Record<string, string[]> = { aModern: [], bModern: [], aLegacy: [], bLegacy: [] };
      const streams = [
        collect(await listen(ta), seen.aModern ?? [], 2500),
        collect(await listen(tb), seen.bModern ?? [], 2500),
        collect(await legacyGet(ta), seen.aLegacy ?? [], 2500),
        collect(await legacyGet(tb), seen.bLegacy ?? [], 2500),
      ];
      await sleep(300);
      await modernPost(gw.url, ta, 2, 'tools/call', { name: 'fix_mutate', arguments: { description: 'Echo the given text back.' } });
      await Promise.all(streams);
      assert.ok(seen.aModern?.includes('notifications/subscriptions/acknowledged'));
      assert.ok(seen.aModern?.includes('notifications/tools/list_changed'), JSON.stringify(seen));
      assert.ok(seen.aLegacy?.includes('notifications/tools/list_changed'), JSON.stringify(seen));
      assert.ok(!seen.bModern?.includes('notifications/tools/list_changed'), "lane b's catalog did not change");
      assert.ok(!seen.bLegacy?.includes('notifications/tools/list_changed'));
    });

    it('a listen with nothing it can honor is acknowledged empty and completes at once, tagged with its id and the serverInfo', async () => {
      const res = await listenRequest(gw.url, await gw.token('a'), 'sub-none', { somethingUnknown: true });
      const events = [...(await res.text()).matchAll(/data: (.*)\n/g)].map((m) => JSON.parse(m[1] ?? '{}') as Record<string, unknown>);
      assert.equal(events.length, 2, JSON.stringify(events));
      const [ack, done] = events as [{ params?: Record<string, unknown> }, { id?: unknown; result?: Record<string, unknown> }];
      assert.deepEqual(ack.params?.notifications, {});
      const ackMeta = (ack.params?._meta ?? {}) as Record<string, unknown>;
      assert.equal(ackMeta['io.modelcontextprotocol/subscriptionId'], 'sub-none');
      assert.equal(done.id, 'sub-none');
      assert.equal(done.result?.resultType, 'complete');
      const meta = (done.result?._meta ?? {}) as Record<string, unknown>;
      assert.equal(meta['io.modelcontextprotocol/subscriptionId'], 'sub-none');
      assert.equal((meta['io.modelcontextprotocol/serverInfo'] as { name?: string }).name, 'lanegate');
    });
  });
});
