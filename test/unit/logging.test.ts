import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escapeUntrusted, SHOWN_NAME_CHARS, shownName } from '../../src/log/escape.js';
import { maskTokens } from '../../src/log/logger.js';
import { checkHostAndOrigin, allowedHosts, allowedOrigins } from '../../src/front/transport/guards.js';
import { lanesAffected } from '../../src/front/mcp/catalog.js';

describe('log hygiene', () => {
  it('escapes control and bidi characters so a server cannot forge a log line', () => {
    assert.equal(escapeUntrusted('v1\n{"level":"error"}'), 'v1\\u000a{"level":"error"}');
    assert.equal(escapeUntrusted('a\u001b[31mred'), 'a\\u001b[31mred');
    assert.equal(escapeUntrusted('x\u202ey'), 'x\\u202ey');
    assert.equal(escapeUntrusted('z'.repeat(600)), `${'z'.repeat(512)}…(600 chars)`);
    // Escaping can lengthen a string past the bound: still cut, still marked.
    assert.equal(escapeUntrusted('\n'.repeat(100)), `${'\\u000a'.repeat(100).slice(0, 512)}…(100 chars)`);
  });
  it("repeats a lane's method or name cut short and escaped (attack round 9: a 4 MB method came back whole)", () => {
    const huge = `x\u001b${'m'.repeat(4_000_000)}`;
    const shown = shownName(huge);
    assert.ok(shown.startsWith('x\\u001bmmm'), shown.slice(0, 20));
    assert.ok(shown.endsWith(`…(${huge.length} chars)`), shown.slice(-40));
    assert.ok(shown.length < SHOWN_NAME_CHARS + 40, `${shown.length} chars shown`);
    assert.equal(shownName('tools/call'), 'tools/call');
  });
  it('masks bearer tokens and JWT-shaped strings', () => {
    assert.equal(maskTokens('Authorization: Bearer abc.def'), 'Authorization: Bearer [REDACTED]');
    assert.equal(maskTokens('tok eyJhbGciOi.eyJzdWIiOi.sig'), 'tok [REDACTED-JWT]');
  });
});

describe('DNS-rebinding guard', () => {
  const hosts = allowedHosts(8750);
  const origins = allowedOrigins(8750, ['https://ops.example']);
  it('accepts loopback hosts and origins of this port', () => {
    assert.equal(checkHostAndOrigin('127.0.0.1:8750', undefined, hosts, origins), undefined);
    assert.equal(checkHostAndOrigin('localhost:8750', 'http://localhost:8750', hosts, origins), undefined);
    assert.equal(checkHostAndOrigin('[::1]:8750', 'https://ops.example', hosts, origins), undefined);
  });
  it('refuses other hosts, ports and origins, and the null origin', () => {
    assert.ok(checkHostAndOrigin('evil.example:8750', undefined, hosts, origins));
    assert.ok(checkHostAndOrigin('127.0.0.1:9999', undefined, hosts, origins));
    assert.ok(checkHostAndOrigin(undefined, undefined, hosts, origins));
    assert.ok(checkHostAndOrigin('127.0.0.1:8750', 'http://evil.example', hosts, origins));
    assert.ok(checkHostAndOrigin('127.0.0.1:8750', 'null', hosts, origins));
  });
});

describe('change fan-out', () => {
  const policy = {
    lanes: {
      a: { name: 'a', servers: ['x'], enabled: true, catalog: 'full' as const, naming: 'prefixed' as const },
      b: { name: 'b', servers: ['y'], enabled: true, catalog: 'full' as const, naming: 'prefixed' as const },
    },
  } as never;
  it("a shared child's change reaches exactly the lanes that have the server", () => {
    assert.deepEqual(lanesAffected(policy, 'pub', 'x', 'all'), ['a']);
    assert.deepEqual(lanesAffected(policy, 'pub', 'y', ['b']), ['b']);
    assert.deepEqual(lanesAffected(policy, 'mail@b', 'x', 'all'), ['b']);
  });
});
