import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { loadSigningKey, keysDir } from '../../src/auth/keys.js';
import { FIXTURE, policyHead, type RunningGateway, startGateway } from '../helpers/gateway.js';
import { modernPost, post } from '../helpers/mcp.js';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const REVOKED_JTI = 'revoked-0000-token-id';
const CUTOFF = '2026-01-01T00:00:00Z';

const POLICY = `${policyHead()}
trustDomains:
  public: { kind: shared }
servers:
  fix: { prefix: fix, domain: public, stdio: { command: node, args: ["${FIXTURE}"] } }
lanes:
  good: { servers: [fix] }
  cut: { servers: [fix], tokensNotBefore: "${CUTOFF}" }
  off: { servers: [fix], enabled: false }
revokedTokenIds: ["${REVOKED_JTI}"]
`;

const now = (): number => Math.floor(Date.now() / 1000);

describe('every bad token is refused before anything reaches a host', () => {
  let gw: RunningGateway;
  let key: CryptoKey;
  let kid: string;
  let publicJwk: Record<string, unknown>;

  const craft = (claims: Record<string, unknown>, header: Record<string, unknown> = {}, signKey: CryptoKey | Uint8Array = key) =>
    new SignJWT({
      iss: 'lanegate',
      aud: 'lanegate',
      sub: 'good',
      jti: `t-${Math.random()}`,
      iat: now(),
      nbf: now(),
      exp: now() + 600,
      ...claims,
    })
      .setProtectedHeader({ alg: 'EdDSA', kid, typ: 'JWT', ...header } as never)
      .sign(signKey);

  const hostRequests = async (): Promise<number> => {
    const r = await fetch(gw.url.replace(/\/mcp$/, '/metrics'), { headers: { authorization: `Bearer ${gw.operatorToken}` } });
    const text = await r.text();
    return [...text.matchAll(/^lanegate_host_requests_total\{[^}]*\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
  };

  before(async () => {
    gw = await startGateway(POLICY);
    ({ key, kid } = await loadSigningKey(gw.stateDir));
    const pubFile = readdirSync(keysDir(gw.stateDir)).find((f) => f.endsWith('.public.jwk')) ?? '';
    publicJwk = JSON.parse(readFileSync(path.join(keysDir(gw.stateDir), pubFile), 'utf8')) as Record<string, unknown>;
  });
  after(async () => gw.stop());

  it('a good token works (the control)', async () => {
    const r = await modernPost(gw.url, await craft({}), 1, 'tools/list');
    assert.equal(r.status, 200);
  });

  it('refuses each bad token with 401 + WWW-Authenticate, and no host sees a request', async () => {
    const other = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    const b64 = (o: object): string => Buffer.from(JSON.stringify(o)).toString('base64url');
    const good = await craft({});
    const [h, p, s] = good.split('.');
    const flipped = `${h}.${p}.${(s ?? '').startsWith('A') ? `B${(s ?? '').slice(1)}` : `A${(s ?? '').slice(1)}`}`;
    const hsKey = new TextEncoder().encode(JSON.stringify(publicJwk));
    const hsRaw = Buffer.from(String(publicJwk.x), 'base64url');
    const cases: Record<string, string | undefined> = {
      missing: undefined,
      malformed: 'not-a-jwt',
      'bad signature': flipped,
      'alg none': `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ iss: 'lanegate', aud: 'lanegate', sub: 'good', jti: 'x', iat: now(), exp: now() + 600 })}.`,
      'HS256 with the public key (JWK)': await craft({}, { alg: 'HS256' }, hsKey),
      'HS256 with the public key (raw)': await craft({}, { alg: 'HS256' }, hsRaw),
      expired: await craft({ iat: now() - 7200, nbf: now() - 7200, exp: now() - 3600 }),
      'not yet valid': await craft({ nbf: now() + 3600, iat: now() + 3600, exp: now() + 7200 }),
      'wrong iss': await craft({ iss: 'someone-else' }),
      'wrong aud': await craft({ aud: 'another-gateway' }),
      'no exp': await craft({ exp: undefined }),
      'unknown kid': await craft({}, { kid: 'no-such-kid' }),
      'signed by another key': await craft({}, {}, other.privateKey),
      'revoked id': await craft({ jti: REVOKED_JTI }),
      'issued before the lane cut-off': await craft({
        sub: 'cut',
        iat: Date.parse(CUTOFF) / 1000 - 60,
        nbf: Date.parse(CUTOFF) / 1000 - 60,
      }),
      'removed lane': await craft({ sub: 'ghost' }),
      'disabled lane': await craft({ sub: 'off' }),
    };
    const before = await hostRequests();
    for (const [label, token] of Object.entries(cases)) {
      for (const era of ['legacy', 'modern']) {
        const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
        const r =
          era === 'modern'
            ? await post(
                gw.url,
                {
                  jsonrpc: '2.0',
                  id: 1,
                  method: 'tools/call',
                  params: {
                    name: 'fix_echo',
                    arguments: {},
                    _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
                  },
                },
                { ...headers, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'fix_echo' },
              )
            : await post(
                gw.url,
                {
                  jsonrpc: '2.0',
                  id: 1,
                  method: 'initialize',
                  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
                },
                headers,
              );
        assert.equal(r.status, 401, `${label} (${era}) must be refused`);
        assert.match(r.headers.get('www-authenticate') ?? '', /^Bearer realm="lanegate"/, label);
        assert.equal(r.headers.get('mcp-session-id'), null, `${label} opens no session`);
      }
    }
    assert.equal(await hostRequests(), before, 'no refused request reached a host');
  });

  it('the cut-off lane accepts a token issued after its cut-off', async () => {
    const r = await modernPost(gw.url, await craft({ sub: 'cut' }), 1, 'tools/list');
    assert.equal(r.status, 200);
  });

  it('a lane token never opens the operator endpoints', async () => {
    const lane = await craft({});
    const r = await fetch(gw.url.replace(/\/mcp$/, '/metrics'), { headers: { authorization: `Bearer ${lane}` } });
    assert.equal(r.status, 401);
    const p = await fetch(gw.url.replace(/\/mcp$/, '/api/processes'), { headers: { authorization: `Bearer ${lane}` } });
    assert.equal(p.status, 401);
  });

  it('never logs a token', async () => {
    const lane = await craft({});
    await post(gw.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: `Bearer ${lane}x` });
    assert.ok(!gw.stderr().includes(lane.slice(0, 40)), 'log holds no token');
    assert.ok(!gw.stderr().includes(gw.operatorToken), 'log holds no operator token');
  });

  it('the public key file the front loads holds no private material', () => {
    assert.equal(publicJwk.kty, 'OKP');
    assert.equal(publicJwk.d, undefined);
  });
});
