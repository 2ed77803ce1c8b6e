import { generateKeyPairSync } from 'node:crypto';
import { signCallback, verifyCallbackSignature, type VerifyCallbackSignatureInput } from '../src';

// Issue 17: a validly signed callback proves the gateway sent it, not that the money reached this
// merchant. Whoever registers the merchant's callback URL with their own payout address first gets
// the merchant a signed "paid" callback for money paid to them; the callback names the payout
// address it paid (address_out), and verify refuses one that is not the merchant's.
const merchant = '0x52908400098527886E0F7030069857D2E4169EE7';
const attacker = '0x8ba1f109551bD432803012645Ac136ddd64DBA72';
const t = 1_700_000_000;
const deliveryId = '1b7e4a52-6f0c-4c8e-9d3a-2f1e5b7c9a01';
const key = generateKeyPairSync('ed25519');

const callbackUrl = (addressOut: string | undefined, extra = '') =>
  'https://shop.example/ipn?order_id=1234&value_coin=25&value_forwarded_coin=24.75&fee_coin=0.25&coin=polygon_usdc' +
  `&txid_in=0xaa&txid_out=0xbb&address_in=0x275BD9c6A1f2e1d2B8E86e2d2a0E3C2F4c1e5A11${addressOut === undefined ? '' : `&address_out=${addressOut}`}` +
  `&ipn_token=tok_1${extra}`;

function signed(url: string, options: { v1Only?: boolean } = {}) {
  const header = signCallback({ url, deliveryId, privateKeys: [{ key: key.privateKey }], timestamp: t });
  return options.v1Only
    ? header
        .split(',')
        .filter((part) => !part.startsWith('v2='))
        .join(',')
    : header;
}

const check = (url: string, input: Partial<VerifyCallbackSignatureInput> = {}) =>
  verifyCallbackSignature({
    url,
    header: signed(url),
    deliveryId,
    publicKeys: [key.publicKey],
    now: t,
    payoutAddress: merchant,
    expectedAmount: '24.75',
    ...input,
  });

describe('verifyCallbackSignature checks what was paid to whom, not only who signed', () => {
  it("accepts the merchant's own address_out, in any case, and returns it", () => {
    for (const addressOut of [merchant, merchant.toLowerCase()]) {
      expect(check(callbackUrl(addressOut))).toEqual({
        ok: true,
        timestamp: t,
        scheme: 'v2',
        deliveryId,
        addressOut,
        valueForwarded: '24.75',
      });
    }
    expect(check(callbackUrl(merchant), { payoutAddress: merchant.toLowerCase() }).ok).toBe(true);
  });

  it('refuses a validly signed callback whose address_out is another payout address (the hijack)', () => {
    expect(check(callbackUrl(attacker))).toEqual({ ok: false, reason: 'address_out_mismatch' });
  });

  it('refuses a callback without address_out, with two of them, or with one that is not an address', () => {
    for (const url of [
      callbackUrl(undefined),
      callbackUrl(merchant, `&address_out=${attacker}`),
      callbackUrl(merchant, `&address_out=${merchant}`),
      callbackUrl('0x1234'),
    ]) {
      expect([url, check(url)]).toEqual([url, { ok: false, reason: 'address_out_mismatch' }]);
    }
  });

  it('checks the signature first: a forged callback is refused for its signature, whatever it names', () => {
    const forged = callbackUrl(attacker);
    expect(
      verifyCallbackSignature({
        expectedAmount: false,
        url: forged,
        header: signed(callbackUrl(merchant)),
        deliveryId,
        publicKeys: [key.publicKey],
        now: t,
        payoutAddress: merchant,
      }),
    ).toEqual({
      ok: false,
      reason: 'no_matching_signature',
    });
  });

  it("refuses another wallet's ipn_token when the merchant gives the one it stored", () => {
    expect(check(callbackUrl(merchant), { ipnToken: 'tok_1' }).ok).toBe(true);
    expect(check(callbackUrl(merchant), { ipnToken: 'tok_2' })).toEqual({ ok: false, reason: 'ipn_token_mismatch' });
  });

  it('is a configuration error, thrown, to verify without a valid payout address', () => {
    for (const payoutAddress of [undefined, '', '0x1234', 'shop']) {
      expect(() => check(callbackUrl(merchant), { payoutAddress: payoutAddress as string })).toThrow(TypeError);
    }
  });
});

describe('v2 by default', () => {
  it('refuses a header stripped down to v1 unless the merchant opts in with allowV1', () => {
    const url = callbackUrl(merchant);
    const v1Only = signed(url, { v1Only: true });
    const input = {
      url,
      header: v1Only,
      deliveryId,
      publicKeys: [key.publicKey],
      now: t,
      payoutAddress: merchant,
      expectedAmount: false as const,
    };
    expect(verifyCallbackSignature(input)).toEqual({ ok: false, reason: 'v2_required' });
    expect(verifyCallbackSignature({ ...input, allowV1: true })).toMatchObject({ ok: true, scheme: 'v1' });
    // Opting in to v1 does not weaken the address_out check: v1 covers the URL too.
    const other = callbackUrl(attacker);
    expect(verifyCallbackSignature({ ...input, url: other, header: signed(other, { v1Only: true }), allowV1: true })).toEqual({
      ok: false,
      reason: 'address_out_mismatch',
    });
  });
});

// Issue 22: a stranger set terms on the merchant's own payout address that sent 99% to an
// affiliate of theirs; the shop got a validly signed callback with address_out = its payout,
// value_coin=25 and value_forwarded_coin=0. The payout check passes it: the amount check does not.
describe('expectedAmount: what reached the payout address must cover the order', () => {
  const attack = callbackUrl(merchant).replace('value_forwarded_coin=24.75', 'value_forwarded_coin=0');

  it('refuses the attack callback that the payout check alone accepts', () => {
    expect(check(attack, { expectedAmount: false })).toMatchObject({ ok: true, addressOut: merchant, valueForwarded: '0' });
    expect(check(attack, { expectedAmount: '25' })).toEqual({ ok: false, reason: 'amount_below_expected' });
  });

  it('compares exactly in base units: equal or more passes, one base unit less does not', () => {
    expect(check(callbackUrl(merchant), { expectedAmount: '24.75' })).toMatchObject({ ok: true, valueForwarded: '24.75' });
    expect(check(callbackUrl(merchant), { expectedAmount: '24.750000' })).toMatchObject({ ok: true });
    expect(check(callbackUrl(merchant), { expectedAmount: '24.7' })).toMatchObject({ ok: true });
    expect(check(callbackUrl(merchant), { expectedAmount: '24.750001' })).toEqual({ ok: false, reason: 'amount_below_expected' });
    expect(check(callbackUrl(merchant), { expectedAmount: '25' })).toEqual({ ok: false, reason: 'amount_below_expected' });
  });

  it('refuses a callback whose value_forwarded_coin is missing, doubled or not a USDC amount', () => {
    for (const url of [
      callbackUrl(merchant).replace('&value_forwarded_coin=24.75', ''),
      callbackUrl(merchant, '&value_forwarded_coin=100'),
      callbackUrl(merchant).replace('value_forwarded_coin=24.75', 'value_forwarded_coin=2.5e1'),
      callbackUrl(merchant).replace('value_forwarded_coin=24.75', 'value_forwarded_coin=24.7500001'),
    ]) {
      expect(check(url, { expectedAmount: '1' })).toEqual({ ok: false, reason: 'amount_below_expected' });
    }
  });

  it('an expectedAmount that is not a USDC decimal string (or false) is a configuration error', () => {
    for (const expectedAmount of ['25.0000001', '-1', '1e3', '', 25, undefined, true]) {
      expect(() => check(callbackUrl(merchant), { expectedAmount: expectedAmount as string })).toThrow(TypeError);
    }
  });
});

describe('verifyCallbackSignature refuses to run without what it checks against', () => {
  // An object that prints as the address is still not one: the check is on the string itself.
  it.each([undefined, '', 'merchant', merchant.slice(0, 41), `${merchant}0`, 42, { toString: () => merchant }])(
    'throws for payoutAddress %j, saying what it must be',
    (payoutAddress) => {
      expect(() => check(callbackUrl(merchant), { payoutAddress: payoutAddress as string })).toThrow(
        new TypeError(
          'payoutAddress must be your payout address (0x and 40 hexadecimal characters), the one the wallet was registered with',
        ),
      );
    },
  );

  it.each([undefined, true, 25, '', '25.1234567', '-1', '1e3', ' 25'])(
    'throws for expectedAmount %j, saying what it must be',
    (expectedAmount) => {
      expect(() => check(callbackUrl(merchant), { expectedAmount: expectedAmount as string })).toThrow(
        new TypeError(
          "expectedAmount must be what the order must pay you in USDC as a decimal string (e.g. '25' or '24.75', at most 6 decimals), " +
            'or false to compare value_forwarded_coin yourself',
        ),
      );
    },
  );

  it('with expectedAmount false, a callback without value_forwarded_coin is accepted and says no amount', () => {
    const url = callbackUrl(merchant).replace('&value_forwarded_coin=24.75', '');
    const result = check(url, { expectedAmount: false });
    expect(result).toEqual({ ok: true, timestamp: t, scheme: 'v2', deliveryId, addressOut: merchant });
    expect('valueForwarded' in result).toBe(false);
    expect(check(url)).toEqual({ ok: false, reason: 'amount_below_expected' });
  });
});
