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
