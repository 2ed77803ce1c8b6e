import { generateKeyPairSync } from 'node:crypto';
import { signCallback, verifyCallbackOrder, verifyCallbackSignature, type VerifyCallbackOrderInput } from '../src';

// Issue 34: a wallet is one order, and its callbacks say what the whole order stands at (the sum of
// its final deposits, what it should bring, its state), signed with the rest of the URL. An order
// paid in two transfers is paid when the second callback says so, though neither deposit's own
// value_coin covers it.
const merchant = '0x52908400098527886E0F7030069857D2E4169EE7';
const attacker = '0x8ba1f109551bD432803012645Ac136ddd64DBA72';
const t = 1_700_000_000;
const key = generateKeyPairSync('ed25519');

interface Deposit {
  valueCoin: string;
  forwarded: string;
  /** The order's figures as the gateway appends them; undefined: none (a gateway older than them). */
  order?: string;
  addressOut?: string;
  ipnToken?: string;
}

/** A callback as the gateway sends it: the merchant's order_id, the deposit's parameters, then the order's. */
const callbackUrl = ({ valueCoin, forwarded, order, addressOut = merchant, ipnToken = 'tok_1' }: Deposit) =>
  `https://shop.example/ipn?order_id=1234&value_coin=${valueCoin}&value_forwarded_coin=${forwarded}&fee_coin=0.25` +
  `&coin=polygon_usdc&txid_in=0xaa&txid_out=0xbb&address_in=0x275BD9c6A1f2e1d2B8E86e2d2a0E3C2F4c1e5A11` +
  `&address_out=${addressOut}&ipn_token=${ipnToken}${order === undefined ? '' : `&${order}`}`;

let deliveries = 0;
/** The callback signed with the gateway's real code, and the merchant's order-level check of it. */
function delivered(deposit: Deposit, input: Partial<VerifyCallbackOrderInput> = {}) {
  const url = callbackUrl(deposit);
  deliveries += 1;
  const deliveryId = `delivery-${deliveries}`;
  const header = signCallback({ url, deliveryId, privateKeys: [{ key: key.privateKey }], timestamp: t });
  const signed = { url, header, deliveryId, publicKeys: [key.publicKey], now: t, payoutAddress: merchant };
  return {
    ...signed,
    check: (changes: Partial<VerifyCallbackOrderInput> = {}) =>
      verifyCallbackOrder({ ...signed, ipnToken: 'tok_1', minimumExpected: '24', ...input, ...changes }),
  };
}

const figures = (total: string, expected: string, state: string) =>
  `order_total_coin=${total}&order_expected_coin=${expected}&order_state=${state}`;

describe('verifyCallbackOrder answers what the whole order stands at', () => {
  it('a paid order: its state, total and expectation as decimal strings and base units, and paid', () => {
    const callback = delivered({ valueCoin: '25.000001', forwarded: '24.750001', order: figures('25.000001', '25', 'paid') });
    expect(callback.check()).toEqual({
      ok: true,
      timestamp: t,
      scheme: 'v2',
      deliveryId: callback.deliveryId,
      addressOut: merchant,
      valueForwarded: '24.750001',
      order: {
        state: 'paid',
        paid: true,
        total: '25.000001',
        totalBaseUnits: 25_000_001n,
        expected: '25',
        expectedBaseUnits: 25_000_000n,
      },
    });
  });

  it('an underpaid order is not paid', () => {
    expect(delivered({ valueCoin: '20', forwarded: '19.8', order: figures('20', '25', 'underpaid') }).check()).toMatchObject({
      ok: true,
      order: { state: 'underpaid', paid: false, total: '20', totalBaseUnits: 20_000_000n, expected: '25', expectedBaseUnits: 25_000_000n },
    });
  });

  it('two deposits make one order whole: the first callback says underpaid, the second paid with the total', () => {
    const first = delivered({ valueCoin: '10', forwarded: '9.9', order: figures('10', '25', 'underpaid') });
    const second = delivered({ valueCoin: '15.000001', forwarded: '14.850001', order: figures('25.000001', '25', 'paid') });
    expect(first.check()).toMatchObject({ ok: true, order: { state: 'underpaid', paid: false, totalBaseUnits: 10_000_000n } });
    expect(second.check()).toMatchObject({ ok: true, order: { state: 'paid', paid: true, totalBaseUnits: 25_000_001n } });
    // The per-deposit check cannot say so: neither deposit's share covers the order.
    for (const { check: _, ...signed } of [first, second]) {
      expect(verifyCallbackSignature({ ...signed, ipnToken: 'tok_1', expectedAmount: '24.75' })).toEqual({
        ok: false,
        reason: 'amount_below_expected',
      });
    }
  });

  it('counts overpaid as paid, and neither late nor awaiting', () => {
    const stateOf = (state: string) => delivered({ valueCoin: '30', forwarded: '29.7', order: figures('30', '25', state) }).check();
    expect(stateOf('overpaid')).toMatchObject({ ok: true, order: { state: 'overpaid', paid: true } });
    expect(stateOf('late')).toMatchObject({ ok: true, order: { state: 'late', paid: false } });
    expect(stateOf('awaiting')).toMatchObject({ ok: true, order: { state: 'awaiting', paid: false } });
  });
});

describe('the order figures are signed', () => {
  it('a tampered order_state fails the signature', () => {
    const callback = delivered({ valueCoin: '10', forwarded: '9.9', order: figures('10', '25', 'underpaid') });
    const tampered = callback.url.replace('order_state=underpaid', 'order_state=paid');
    expect(tampered).not.toBe(callback.url);
    expect(callback.check({ url: tampered })).toEqual({ ok: false, reason: 'no_matching_signature' });
  });

  it('so is a tampered total or expectation, and a figure added to a callback without them', () => {
    const callback = delivered({ valueCoin: '10', forwarded: '9.9', order: figures('10', '25', 'underpaid') });
    for (const tampered of [
      callback.url.replace('order_total_coin=10', 'order_total_coin=25'),
      callback.url.replace('order_expected_coin=25', 'order_expected_coin=10'),
    ]) {
      expect(callback.check({ url: tampered })).toEqual({ ok: false, reason: 'no_matching_signature' });
    }
    const old = delivered({ valueCoin: '25', forwarded: '24.75' });
    expect(old.check({ url: `${old.url}&${figures('25', '25', 'paid')}` })).toEqual({ ok: false, reason: 'no_matching_signature' });
  });
});

describe('a callback without order figures: the merchant falls back to the per-deposit check', () => {
  it('answers no_order_figures for a gateway older than them, and the per-deposit check still verifies it', () => {
    const old = delivered({ valueCoin: '25', forwarded: '24.75' });
    expect(old.check()).toEqual({ ok: false, reason: 'no_order_figures' });
    const { check: _, ...signed } = old;
    expect(verifyCallbackSignature({ ...signed, ipnToken: 'tok_1', expectedAmount: '24.75' })).toMatchObject({
      ok: true,
      valueForwarded: '24.75',
    });
  });

  it('answers no_order_figures for an order no attempt gave an expectation (the total alone)', () => {
    expect(delivered({ valueCoin: '25', forwarded: '24.75', order: 'order_total_coin=25' }).check()).toEqual({
      ok: false,
      reason: 'no_order_figures',
    });
  });

  it('answers no_order_figures for figures it cannot read: a state it does not know, a figure twice, one that is no amount', () => {
    for (const order of [
      figures('25', '25', 'refunded'),
      figures('25', '25', 'Paid'),
      `${figures('25', '25', 'paid')}&order_state=paid`,
      `${figures('25', '25', 'paid')}&order_total_coin=25`,
      figures('25', '25.0000001', 'paid'),
      figures('-25', '25', 'paid'),
      'order_total_coin=25&order_state=paid',
      'order_expected_coin=25&order_state=paid',
    ]) {
      expect([order, delivered({ valueCoin: '25', forwarded: '24.75', order }).check()]).toEqual([
        order,
        { ok: false, reason: 'no_order_figures' },
      ]);
    }
  });

  it('checks the signature before the figures: a forged callback without them fails for its signature', () => {
    const old = delivered({ valueCoin: '25', forwarded: '24.75' });
    expect(old.check({ url: old.url.replace('value_coin=25', 'value_coin=26') })).toEqual({ ok: false, reason: 'no_matching_signature' });
  });
});

describe("the merchant's own figure for the order", () => {
  it('refuses a paid order whose expectation is below minimumExpected (a payment link edited to less), exactly in base units', () => {
    const cheap = delivered({ valueCoin: '1', forwarded: '0.99', order: figures('1', '0.97', 'paid') });
    expect(cheap.check()).toEqual({ ok: false, reason: 'expectation_below_minimum' });
    const order = figures('25', '24', 'paid');
    expect(delivered({ valueCoin: '25', forwarded: '24.75', order }).check({ minimumExpected: '24.000001' })).toEqual({
      ok: false,
      reason: 'expectation_below_minimum',
    });
    expect(delivered({ valueCoin: '25', forwarded: '24.75', order }).check({ minimumExpected: '24' })).toMatchObject({
      ok: true,
      order: { paid: true },
    });
  });

  it('lets the merchant opt out explicitly with false, and compare the expectation itself', () => {
    expect(
      delivered({ valueCoin: '1', forwarded: '0.99', order: figures('1', '0.97', 'paid') }).check({ minimumExpected: false }),
    ).toMatchObject({
      ok: true,
      order: { paid: true, expected: '0.97', expectedBaseUnits: 970_000n },
    });
  });

  it('is a configuration error, thrown, to give no minimumExpected, one that is not a USDC amount, or no ipnToken', () => {
    const callback = delivered({ valueCoin: '25', forwarded: '24.75', order: figures('25', '25', 'paid') });
    for (const minimumExpected of [undefined, '', '25 USDC', '1.1234567', 25, true]) {
      expect(() => callback.check({ minimumExpected: minimumExpected as string })).toThrow(TypeError);
    }
    for (const ipnToken of [undefined, '', 7]) {
      expect(() => callback.check({ ipnToken: ipnToken as string })).toThrow(TypeError);
    }
    expect(() => callback.check({ payoutAddress: 'shop' })).toThrow(TypeError);
  });
});

describe('what the per-deposit check refuses, the order-level check refuses too', () => {
  const order = figures('25', '25', 'paid');

  it("refuses another wallet's callback (ipn_token), and one that paid another payout address (address_out)", () => {
    expect(delivered({ valueCoin: '25', forwarded: '24.75', order, ipnToken: 'tok_2' }).check()).toEqual({
      ok: false,
      reason: 'ipn_token_mismatch',
    });
    expect(delivered({ valueCoin: '25', forwarded: '24.75', order, addressOut: attacker }).check()).toEqual({
      ok: false,
      reason: 'address_out_mismatch',
    });
  });

  it('requires v2 and a time within the tolerance', () => {
    const callback = delivered({ valueCoin: '25', forwarded: '24.75', order });
    const v1Only = callback.header
      .split(',')
      .filter((part) => !part.startsWith('v2='))
      .join(',');
    expect(callback.check({ header: v1Only })).toEqual({ ok: false, reason: 'v2_required' });
    expect(callback.check({ header: v1Only, allowV1: true })).toMatchObject({ ok: true, scheme: 'v1', order: { paid: true } });
    expect(callback.check({ now: t + 301 })).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
  });
});
