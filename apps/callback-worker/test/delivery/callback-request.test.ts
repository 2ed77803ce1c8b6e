import { generateKeyPairSync } from 'node:crypto';
import { getAddress } from 'viem';
import type { ClaimedCallbackDelivery } from '@gateway/db/callback-worker';
import { CALLBACK_DELIVERY_ID_HEADER, CALLBACK_SIGNATURE_HEADER, verifyCallbackOrder } from '@usdc-card-gateway/sdk';
import { buildCallbackRequest, type CallbackRequest } from '../../src/services/callback-request';

const key = generateKeyPairSync('ed25519');
const t = 1_700_000_000;
const payoutAddress = '0x52908400098527886E0F7030069857D2E4169EE7';
const temporaryAddress = '0x275bd9c6a1f2e1d2b8e86e2d2a0e3c2f4c1e5a11';

const delivery: ClaimedCallbackDelivery = {
  id: '1b7e4a52-6f0c-4c8e-9d3a-2f1e5b7c9a01',
  attemptNo: 1,
  failedInRound: 0,
  refusalsInRow: 0,
  dueAt: new Date(t * 1000),
  forwardedAt: new Date(t * 1000),
  callbackUrl: 'https://shop.example/ipn?order_id=1234',
  temporaryAddress,
  payoutAddress: payoutAddress.toLowerCase(),
  callbackReleased: false,
  ipnToken: 'tok_1',
  valueCoin: 12_500_000n,
  valueForwardedCoin: 12_375_000n,
  feeCoin: 125_000n,
  txidIn: `0x${'a1'.repeat(32)}`,
  txidOut: `0x${'b2'.repeat(32)}`,
  orderTotalCoin: 25_000_001n,
  orderExpectedCoin: 25_000_000n,
  orderState: 'paid',
};

const deposit =
  'value_coin=12.5&value_forwarded_coin=12.375&fee_coin=0.125&coin=polygon_usdc' +
  `&txid_in=0x${'a1'.repeat(32)}&txid_out=0x${'b2'.repeat(32)}&address_in=${getAddress(temporaryAddress)}` +
  `&address_out=${payoutAddress}&ipn_token=tok_1`;

const build = (changes: Partial<ClaimedCallbackDelivery> = {}) =>
  buildCallbackRequest({ ...delivery, ...changes }, [{ key: key.privateKey }], t);

describe("the callback's order figures", () => {
  it("appends the order's total, expectation and state after the deposit's parameters, amounts formatted as value_coin", () => {
    expect(build().url).toBe(
      `https://shop.example/ipn?order_id=1234&${deposit}&order_total_coin=25.000001&order_expected_coin=25&order_state=paid`,
    );
    expect(build({ orderTotalCoin: 7_000_000n, orderExpectedCoin: 12_345_678n, orderState: 'underpaid' }).url).toMatch(
      /&order_total_coin=7&order_expected_coin=12\.345678&order_state=underpaid$/,
    );
  });

  it('sends none of them for a delivery written before orders had figures', () => {
    expect(build({ orderTotalCoin: null, orderExpectedCoin: null, orderState: null }).url).toBe(
      `https://shop.example/ipn?order_id=1234&${deposit}`,
    );
  });

  it('sends the total alone for an order that no attempt gave an expectation', () => {
    expect(build({ orderTotalCoin: 3_500_000n, orderExpectedCoin: null, orderState: null }).url).toBe(
      `https://shop.example/ipn?order_id=1234&${deposit}&order_total_coin=3.5`,
    );
  });

  it("never lets a merchant's same-named parameter stand beside ours or in their place, and names it as dropped", () => {
    const callbackUrl = 'https://shop.example/ipn?order_id=1234&order_state=paid&order%5Fexpected_coin=1';
    const withFigures = build({ callbackUrl, orderTotalCoin: 1_000_000n, orderExpectedCoin: 25_000_000n, orderState: 'underpaid' });
    const query = new URL(withFigures.url).searchParams;
    expect([query.getAll('order_state'), query.getAll('order_expected_coin')]).toEqual([['underpaid'], ['25']]);
    expect(withFigures.droppedParams).toEqual(['order_state', 'order_expected_coin']);
    // A delivery without figures drops the merchant's too: a shop never reads its own "paid" as the gateway's.
    const without = build({ callbackUrl, orderTotalCoin: null, orderExpectedCoin: null, orderState: null });
    expect(without.url).toBe(`https://shop.example/ipn?order_id=1234&${deposit}`);
  });

  it('signs them with the rest of the URL: the SDK reads them from a verified callback, and refuses a changed state', () => {
    const verify = (request: CallbackRequest, url = request.url) =>
      verifyCallbackOrder({
        url,
        header: request.headers[CALLBACK_SIGNATURE_HEADER],
        deliveryId: request.headers[CALLBACK_DELIVERY_ID_HEADER],
        publicKeys: [key.publicKey],
        payoutAddress,
        ipnToken: 'tok_1',
        minimumExpected: '25',
        now: t,
      });
    expect(verify(build())).toMatchObject({
      ok: true,
      deliveryId: delivery.id,
      order: { state: 'paid', paid: true, total: '25.000001', totalBaseUnits: 25_000_001n, expected: '25', expectedBaseUnits: 25_000_000n },
    });
    const underpaid = build({ orderTotalCoin: 10_000_000n, orderState: 'underpaid' });
    expect(verify(underpaid)).toMatchObject({ ok: true, order: { state: 'underpaid', paid: false } });
    const tampered = underpaid.url.replace('order_state=underpaid', 'order_state=paid');
    expect(tampered).not.toBe(underpaid.url);
    expect(verify(underpaid, tampered)).toEqual({ ok: false, reason: 'no_matching_signature' });
  });
});
