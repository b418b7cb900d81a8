import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findCollisions, prefixName, prefixUri, splitPrefixed, splitPrefixedUri } from '../../src/naming/prefix.js';
import { hostKeyFor, hostsForLane, lanesOfHost, parseHostKey, route } from '../../src/routing/route.js';
import { unprefixRequest } from '../../src/naming/unprefix.js';
import { prefixItems } from '../../src/host/surface.js';
import type { Policy } from '../../src/policy/model.js';
import { stdioServer } from '../helpers/policy-objects.js';

const srv = (name: string, prefix: string, domain: string, enabled = true) => stdioServer(name, domain, prefix, enabled);

const policy: Pick<Policy, 'domains' | 'servers' | 'lanes'> = {
  domains: {
    pub: { name: 'pub', kind: 'shared', perLane: false, secrets: [] },
    mail: { name: 'mail', kind: 'principal', perLane: true, secrets: [] },
  },
  servers: {
    docs: srv('docs', 'docs', 'pub'),
    git: srv('git', 'git-hub', 'pub'),
    inbox: srv('inbox', 'mail', 'mail'),
    off: srv('off', 'off', 'pub', false),
  },
  lanes: {
    a: { name: 'a', servers: ['docs', 'inbox', 'off'], enabled: true, catalog: 'full', naming: 'prefixed' },
    b: { name: 'b', servers: ['git'], enabled: true, catalog: 'full', naming: 'prefixed' },
  },
};

describe('naming', () => {
  it('prefixes and splits at the first separator only', () => {
    assert.equal(prefixName('docs', 'search_all'), 'docs_search_all');
    assert.deepEqual(splitPrefixed('docs_search_all'), { prefix: 'docs', rest: 'search_all' });
    assert.equal(splitPrefixed('nodocs'), undefined);
    assert.equal(splitPrefixed('_x'), undefined);
    assert.equal(splitPrefixed('x_'), undefined);
    assert.equal(prefixUri('fs', 'file:///a+b'), 'fs+file:///a+b');
    assert.deepEqual(splitPrefixedUri('fs+file:///a+b'), { prefix: 'fs', rest: 'file:///a+b' });
  });

  it('finds duplicates, empty and over-long names; a clean list has none', () => {
    assert.deepEqual(findCollisions('p', ['a', 'b']), []);
    assert.deepEqual(
      findCollisions('p', ['a', 'a']).map((c) => c.reason),
      ['duplicate'],
    );
    assert.deepEqual(
      findCollisions('p', ['']).map((c) => c.reason),
      ['empty'],
    );
    assert.deepEqual(
      findCollisions('p', ['x'.repeat(127)]).map((c) => c.reason),
      ['too_long'],
    );
  });

  it('prefixItems renames tools and resource URIs and refuses a collision', () => {
    const ok = prefixItems('tools/list', 'fs', [{ name: 'read' }, { name: 'write' }]);
    assert.deepEqual(ok, { ok: true, items: [{ name: 'fs_read' }, { name: 'fs_write' }] });
    const dup = prefixItems('tools/list', 'fs', [{ name: 'read' }, { name: 'read' }]);
    assert.equal(dup.ok, false);
    const res = prefixItems('resources/list', 'fs', [{ uri: 'file:///x', name: 'x' }]);
    assert.deepEqual(res, { ok: true, items: [{ uri: 'fs+file:///x', name: 'x' }] });
    assert.equal(prefixItems('resources/list', 'fs', [{ name: 'no uri' }]).ok, false);
    const tpl = prefixItems('resources/templates/list', 'fs', [{ uriTemplate: 'file:///{p}' }]);
    assert.deepEqual(tpl, { ok: true, items: [{ uriTemplate: 'fs+file:///{p}' }] });
  });
});

describe('unprefixing a forwarded request', () => {
  it('gives the upstream its own names for tools, prompts, resources and completions, and leaves the rest alone', () => {
    assert.deepEqual(unprefixRequest('tools/call', { name: 'docs_search_all', arguments: { q: 1 } }), {
      prefix: 'docs',
      params: { name: 'search_all', arguments: { q: 1 } },
    });
    assert.deepEqual(unprefixRequest('prompts/get', { name: 'mail_greet' })?.params, { name: 'greet' });
    assert.deepEqual(unprefixRequest('resources/read', { uri: 'docs+file:///a' }), { prefix: 'docs', params: { uri: 'file:///a' } });
    assert.deepEqual(unprefixRequest('completion/complete', { ref: { type: 'ref/prompt', name: 'mail_greet' } })?.params, {
      ref: { type: 'ref/prompt', name: 'greet' },
    });
    assert.deepEqual(unprefixRequest('completion/complete', { ref: { type: 'ref/resource', uri: 'docs+x://y' } })?.params, {
      ref: { type: 'ref/resource', uri: 'x://y' },
    });
    assert.equal(unprefixRequest('tools/call', { name: 'noprefix' })?.prefix, undefined, 'no prefix: refused by the caller');
    assert.equal(unprefixRequest('tools/list', {}), undefined);
  });
});

describe('routing', () => {
  it("routes a lane's own tools to the right host, per lane for a per-lane domain", () => {
    assert.deepEqual(route(policy, 'a', 'docs_search'), { ok: true, server: 'docs', rest: 'search', hostKey: 'pub' });
    assert.deepEqual(route(policy, 'a', 'mail_send'), { ok: true, server: 'inbox', rest: 'send', hostKey: 'mail@a' });
    assert.deepEqual(route(policy, 'b', 'git-hub_status'), { ok: true, server: 'git', rest: 'status', hostKey: 'pub' });
    assert.deepEqual(route(policy, 'a', 'mail+imap://x', 'uri'), { ok: true, server: 'inbox', rest: 'imap://x', hostKey: 'mail@a' });
  });

  it("answers not_in_catalog for another lane's server, an unknown prefix, a disabled server, or an unknown lane", () => {
    for (const [lane, name] of [
      ['b', 'docs_search'],
      ['a', 'git-hub_status'],
      ['a', 'nope_x'],
      ['a', 'off_x'],
      ['zz', 'docs_x'],
      ['a', 'docs'],
    ]) {
      assert.deepEqual(route(policy, lane ?? '', name ?? ''), { ok: false, reason: 'not_in_catalog' }, `${lane} ${name}`);
    }
  });

  it('lists the hosts a lane spans', () => {
    assert.deepEqual(
      [...hostsForLane(policy, 'a')],
      [
        ['pub', { domain: 'pub', servers: ['docs'] }],
        ['mail@a', { domain: 'mail', servers: ['inbox'] }],
      ],
    );
    assert.equal(hostKeyFor(policy, 'pub', 'a'), 'pub');
    assert.equal(hostKeyFor(policy, 'mail', 'b'), 'mail@b');
  });

  it('reads a host key back, and names the lanes a host serves (only through enabled servers)', () => {
    for (const [domain, lane] of [
      ['pub', 'a'],
      ['mail', 'b'],
    ] as const) {
      const key = hostKeyFor(policy, domain, lane);
      assert.deepEqual(parseHostKey(key), policy.domains[domain]?.perLane ? { domain, lane } : { domain });
    }
    assert.deepEqual(parseHostKey('mail@lane@odd'), { domain: 'mail', lane: 'lane@odd' }, 'the first @ splits');
    assert.deepEqual(lanesOfHost(policy, 'pub'), ['a', 'b']);
    assert.deepEqual(lanesOfHost(policy, 'mail@a'), ['a']);
    assert.deepEqual(lanesOfHost(policy, 'mail@b'), [], 'lane b lists no mail server');
    const offOnly = {
      ...policy,
      lanes: { c: { name: 'c', servers: ['off'], enabled: true, catalog: 'full' as const, naming: 'prefixed' as const } },
    };
    assert.deepEqual(lanesOfHost(offOnly, 'pub'), [], 'a disabled server spans no host');
  });
});

describe('URIs inside results are in the lane names', () => {
  it('a resources/read and the resource links of a tool result come back under the prefix, and bare lanes see them bare', async () => {
    const { prefixResultUris } = await import('../../src/host/surface.js');
    const { bareResult } = await import('../../src/naming/bare.js');
    const read = prefixResultUris('resources/read', 'every', { contents: [{ uri: 'demo://r/1', text: 'x' }] });
    assert.deepEqual(read, { contents: [{ uri: 'every+demo://r/1', text: 'x' }] });
    const call = prefixResultUris('tools/call', 'every', {
      content: [
        { type: 'text', text: 'see' },
        { type: 'resource_link', uri: 'demo://r/2', name: 'r2' },
        { type: 'resource', resource: { uri: 'demo://r/3', text: 'y' } },
      ],
    });
    assert.deepEqual(
      (call.content as { uri?: string; resource?: { uri: string } }[]).map((c) => c.uri ?? c.resource?.uri),
      [undefined, 'every+demo://r/2', 'every+demo://r/3'],
    );
    assert.deepEqual(bareResult('tools/call', call, 'every').content, [
      { type: 'text', text: 'see' },
      { type: 'resource_link', uri: 'demo://r/2', name: 'r2' },
      { type: 'resource', resource: { uri: 'demo://r/3', text: 'y' } },
    ]);
    assert.deepEqual(bareResult('resources/read', read, 'every'), { contents: [{ uri: 'demo://r/1', text: 'x' }] });
    // A task's result (tasks/result) is a tool result too.
    assert.deepEqual(bareResult('tasks/result', call, 'every').content, bareResult('tools/call', call, 'every').content);
  });
});
