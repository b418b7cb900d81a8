import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  exactIdStandIn,
  exactProgressTokenStandIn,
  exactRequestIdStandIn,
  integerDigits,
  restoreExactIds,
} from '../../src/front/transport/big-ids.js';

/** The digits a stand-in carries (after its prefix and per-process nonce). */
const digitsOf = (s: string | undefined): string | undefined => s?.slice(s.indexOf(':') + 1);
const standIn = (text: string): string | undefined => digitsOf(exactRequestIdStandIn(JSON.parse(text), text));
const BIG = '12345678901234567891';

describe("a cancel's requestId beyond 2^53, read exactly (issue 19; review)", () => {
  it('reads params.requestId, not a requestId nested elsewhere or written inside a string', () => {
    assert.equal(standIn(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${BIG},"reason":"x"}}`), BIG);
    assert.equal(
      standIn(
        `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"_meta":{"requestId":11111111111111111111},"requestId":${BIG}}}`,
      ),
      BIG,
    );
    assert.equal(
      standIn(
        `{"requestId":99999999999999999999,"jsonrpc":"2.0","method":"notifications/cancelled","params":{"note":"\\"requestId\\": 77777777777777777777","requestId":${BIG}}}`,
      ),
      BIG,
    );
  });

  it('takes the last of duplicate keys, as JSON.parse does; leaves safe ids and other methods alone', () => {
    assert.equal(
      standIn(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":11111111111111111111,"requestId":${BIG}}}`),
      BIG,
    );
    assert.equal(standIn('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":42}}'), undefined);
    assert.equal(standIn(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"requestId":${BIG}}}`), undefined);
  });

  it("a request's own id is read at the top level only, the last of duplicates", () => {
    const id = (text: string): string | undefined => digitsOf(exactIdStandIn(JSON.parse(text), text));
    assert.equal(id(`{"jsonrpc":"2.0","id":${BIG},"method":"tools/list"}`), BIG);
    assert.equal(id(`{"params":{"id":11111111111111111111},"jsonrpc":"2.0","method":"tools/list","id":-${BIG}}`), `-${BIG}`);
    assert.equal(id(`{"id":11111111111111111111,"id":${BIG},"method":"tools/list"}`), BIG);
    assert.equal(id('{"jsonrpc":"2.0","id":7,"method":"tools/list"}'), undefined);
  });

  it("a lane's own string id of the same shape is never taken for a stand-in (attack round 10)", () => {
    const stand = exactIdStandIn(JSON.parse(`{"id":${BIG}}`), `{"id":${BIG}}`) as string;
    assert.ok(stand.startsWith('\u0000lanegate-id-') && stand.endsWith(`:${BIG}`));
    assert.equal(restoreExactIds(JSON.stringify({ id: stand })), `{"id":${BIG}}`);
    // The shape an attacker could see in an old release, or guess: left as the lane's string.
    const lanes = JSON.stringify({ id: `\u0000lanegate-id:${BIG}` });
    assert.equal(restoreExactIds(lanes), lanes);
    const guessed = JSON.stringify({ id: `\u0000lanegate-id-000000000000000000:${BIG}` });
    assert.equal(restoreExactIds(guessed), guessed);
  });
});

describe('a progress token beyond 2^53, read exactly (attack round 10, LOW)', () => {
  const token = (text: string): string | undefined => digitsOf(exactProgressTokenStandIn(JSON.parse(text), text));
  it('reads params._meta.progressToken only, the last of duplicates, and leaves safe tokens and strings alone', () => {
    assert.equal(token(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":${BIG}}}}`), BIG);
    assert.equal(
      token(
        `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"progressToken":11111111111111111111,"_meta":{"note":"\\"progressToken\\":2","progressToken":1,"progressToken":-${BIG}}}}`,
      ),
      `-${BIG}`,
    );
    assert.equal(token('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":42}}}'), undefined);
    assert.equal(token(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":"${BIG}"}}}`), undefined);
    assert.equal(
      token(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"_meta":{"progressToken":${BIG}}}}}`),
      undefined,
    );
  });

  it('its stand-in is written back as the exact digits in a progress notification', () => {
    const text = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":${BIG}}}}`;
    const stand = exactProgressTokenStandIn(JSON.parse(text), text) as string;
    const note = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: stand, progress: 1 } });
    assert.equal(
      restoreExactIds(note),
      `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":${BIG},"progress":1}}`,
    );
  });
});

describe('integers of up to 308 digits, read exactly (attack round 11, LOW)', () => {
  it('an id or a progress token of 100 or 308 digits gets its digits, and two such ids stay two', () => {
    for (const n of [100, 308]) {
      const big = `1${'0'.repeat(n - 2)}1`;
      const text = `{"jsonrpc":"2.0","id":${big},"method":"tools/call","params":{"_meta":{"progressToken":-${big}}}}`;
      assert.equal(digitsOf(exactIdStandIn(JSON.parse(text), text)), big, `${n}-digit id`);
      assert.equal(digitsOf(exactProgressTokenStandIn(JSON.parse(text), text)), `-${big}`, `${n}-digit token`);
    }
    const a = `1${'0'.repeat(98)}1`;
    const b = `1${'0'.repeat(98)}2`;
    const stand = (x: string) => exactIdStandIn(JSON.parse(`{"id":${x}}`), `{"id":${x}}`);
    assert.notEqual(stand(a), stand(b), 'JSON.parse makes them one number; their stand-ins stay two');
  });
});

describe('an integer id beyond 2^53 written with a fraction or an exponent (attack round 17, LOW-4)', () => {
  it('is the same integer, its digits exact', () => {
    const id = (lit: string): string | undefined => {
      const text = `{"jsonrpc":"2.0","id":${lit},"method":"tools/list"}`;
      return digitsOf(exactIdStandIn(JSON.parse(text), text));
    };
    assert.equal(id('9007199254740993.0'), '9007199254740993');
    assert.equal(id('9007199254740993.000'), '9007199254740993');
    assert.equal(id('9.007199254740993e15'), '9007199254740993');
    assert.equal(id('9007199254740993E+0'), '9007199254740993');
    assert.equal(id('-900719925474099300e-2'), '-9007199254740993');
    assert.equal(id('12345678901234567891.0'), '12345678901234567891');
  });

  it('moves decimal digits, never rounds: what is not an integer gets no stand-in', () => {
    assert.equal(integerDigits('12300e-2'), '123');
    assert.equal(integerDigits('1.5e1'), '15');
    assert.equal(integerDigits('0.0'), '0');
    assert.equal(integerDigits('-0'), '0');
    assert.equal(integerDigits('9007199254740993.5'), undefined);
    assert.equal(integerDigits('12345e-2'), undefined);
    assert.equal(integerDigits('1e999'), undefined, 'past the digits read exactly');
    assert.equal(integerDigits('1e-999'), undefined);
    assert.equal(integerDigits('x1'), undefined);
  });
});
