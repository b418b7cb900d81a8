import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateKeyPair } from 'jose';
import { issueLaneToken, verifyLaneToken } from '../../src/auth/tokens.js';

describe('lane tokens: one spelling per token', () => {
  it('a token whose signature is re-spelled in its spare base64url bits is refused; the original passes', async () => {
    const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    const o = { keys: new Map([['k1', publicKey]]), issuer: 'lanegate', audience: 'lanegate' };
    const { token } = await issueLaneToken({
      lane: 'a',
      ttlSeconds: 60,
      issuer: 'lanegate',
      audience: 'lanegate',
      kid: 'k1',
      key: privateKey,
    });
    assert.equal((await verifyLaneToken(token, o)).lane, 'a');
    // An Ed25519 signature is 64 bytes: 86 base64url characters, the last carrying 2 spare bits.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = token.at(-1) ?? 'A';
    const i = alphabet.indexOf(last);
    const twin = `${token.slice(0, -1)}${alphabet[i ^ 1]}`;
    assert.deepEqual(Buffer.from(twin.split('.')[2] ?? '', 'base64url'), Buffer.from(token.split('.')[2] ?? '', 'base64url'), 'same bytes');
    await assert.rejects(verifyLaneToken(twin, o), /canonical/);
  });
});

describe('lane tokens: claims of the right type and time', () => {
  it('refuses a sub that is not a string and an iat beyond the clock skew; a normal token passes', async () => {
    const { SignJWT } = await import('jose');
    const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    const o = { keys: new Map([['k1', publicKey]]), issuer: 'lanegate', audience: 'lanegate' };
    const now = Math.floor(Date.now() / 1000);
    const sign = (claims: Record<string, unknown>) =>
      new SignJWT({ jti: 'j1', ...claims })
        .setProtectedHeader({ alg: 'EdDSA', kid: 'k1' })
        .setIssuer('lanegate')
        .setAudience('lanegate')
        .setExpirationTime(now + 600)
        .sign(privateKey);
    assert.equal((await verifyLaneToken(await sign({ sub: 'a', iat: now }), o)).lane, 'a');
    await assert.rejects(verifyLaneToken(await sign({ sub: ['a'], iat: now }), o), /sub/);
    await assert.rejects(verifyLaneToken(await sign({ sub: 'a', iat: now + 3600 }), o), /iat/);
    await assert.rejects(verifyLaneToken(await sign({ sub: 'a', iat: now, jti: 7 }), o), /jti/);
  });
});
