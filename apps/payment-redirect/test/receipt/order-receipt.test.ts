import type { FastifyInstance } from 'fastify';
import { sealAddressIn, secondChanceFormToken, type EvmAddress } from '@gateway/domain';
import { seedDelivery, seedDeposit, seedPayout } from '@gateway/app-testkit';
import type { PaymentRedirectConfig } from '../../src/config';
import { paymentRedirectFixture, payout } from '../support/payment-redirect-fixture';
import { sandboxWebhook } from '../support/sandbox';

// The receipt judges the order (issue 34): what arrived against what the order should bring, in the customer's currency.
// The sandbox stands in for every provider here, at its documented 1.5 %: a 50.00 USD order should bring 49.25 USDC,
// within 1 % (ORDER_TOLERANCE_BPS unset: a fee range of one figure widens nothing).
const fixture = paymentRedirectFixture('order-receipt', { PUBLIC_URL: 'https://pay.shop.test' });
let app: FastifyInstance;
let config: PaymentRedirectConfig;
const EMAIL = 'jane.doe@shop.io';

interface Order {
  walletId: string;
  addressIn: string;
}

let walletIndex = 0;
async function newOrder(): Promise<Order> {
  walletIndex += 1;
  const temporary = `0x${walletIndex.toString(16).padStart(40, 'e')}` as EvmAddress;
  const addressIn = sealAddressIn(temporary, config.keys);
  const { walletId } = await fixture.insertWallet({
    temporary,
    addressIn,
    callbackUrl: `https://shop.io/ipn?order=${walletIndex}`,
    hdIndex: BigInt(walletIndex),
  });
  return { walletId, addressIn };
}

/** Each payment's key, as the customer's browser holds it. */
const keys = new Map<string, string>();
const keyCookie = (paymentId: string) => ({ cookie: `payment_key=${keys.get(paymentId) ?? ''}` });

async function startPayment(order: Order, amount = '50', provider = 'moonpay'): Promise<string> {
  const response = await app.inject({
    url: '/process-payment.php',
    query: { address: order.addressIn, amount, provider, email: EMAIL, currency: 'USD' },
    headers: { accept: 'application/json' },
  });
  expect(response.statusCode).toBe(200);
  const { payment_id: paymentId, checkout_link: link } = response.json();
  keys.set(paymentId, new URL(link).searchParams.get('key')!);
  return paymentId;
}

let logIndex = 0;
/** A deposit the chain made final (the order counts it), forwarded to the shop with its callback when `forwarded`. */
async function deposit(order: Order, usdc: bigint, { forwarded = false } = {}): Promise<void> {
  logIndex += 1;
  const seeded = await seedDeposit(fixture.db.pool, {
    logIndex,
    blockNumber: 100,
    blockHash: `0x${'b'.repeat(64)}`,
    walletId: order.walletId,
    fromAddress: '0x0000000000000000000000000000000000000001',
    amount: usdc,
    status: forwarded ? 'forwarded' : 'final',
  });
  if (!forwarded) return;
  const { txHash: txOut } = await seedPayout(fixture.db.pool, {
    depositId: seeded.id,
    fromAddress: `0x${'a'.repeat(40)}`,
    toAddress: payout,
    status: 'confirmed',
  });
  await seedDelivery(fixture.db.pool, {
    walletId: order.walletId,
    depositId: seeded.id,
    valueCoin: usdc,
    valueForwardedCoin: usdc,
    feeCoin: 0n,
    txidIn: seeded.txHash,
    txidOut: txOut!,
    status: 'delivered',
  });
}

const receipt = (paymentId: string, withKey = true) =>
  app.inject({ url: `/payment/${paymentId}`, headers: withKey ? keyCookie(paymentId) : {} });

/** The rest's form, as the receipt posts it from the browser holding the key. */
const payRest = async (paymentId: string, provider: string) => {
  const response = await app.inject({
    method: 'POST',
    url: `/payment/${paymentId}/rest`,
    payload: new URLSearchParams({ provider, form_token: secondChanceFormToken(keys.get(paymentId) ?? '', paymentId) }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://pay.shop.test', ...keyCookie(paymentId) },
  });
  const next = response.cookies[0];
  if (next) keys.set(next.path!.split('/')[2]!, next.value);
  return response;
};

const h1 = (body: string) => /<h1>([^<]*)<\/h1>/.exec(body)?.[1];
/** The order's notice, its paragraphs as text. */
const orderNotice = (body: string) => {
  const notice = /<div class="notice warn" id="order-state" data-order-state="([a-z]+)">([\s\S]*?)<\/div>/.exec(body);
  if (!notice) return undefined;
  return { state: notice[1], lines: [...notice[2]!.matchAll(/<p>([^<]*)<\/p>/g)].map((match) => decode(match[1]!)) };
};
/** The rest's forms: `<provider> <charge>`. */
const restChoices = (body: string) =>
  [
    ...body.matchAll(
      /data-provider="([a-z0-9]+)"><span class="provider-name"><span class="visually-hidden">Pay the rest with <\/span>[^<]*<\/span><span class="provider-amount">([^<]*)</g,
    ),
  ].map(([, provider, charge]) => `${provider} ${charge}`);
const decode = (html: string) =>
  html
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');

beforeAll(async () => {
  config = fixture.config();
  app = await fixture.build(config);
});

describe('an underpaid order: what arrived, what is missing, and the rest', () => {
  it('says X of Y arrived and Z is missing, and offers the rest through the providers whose minimum allows it', async () => {
    const order = await newOrder();
    const paymentId = await startPayment(order);
    // 40 % of the 49.25 USDC expected: 29.55 USDC missing, 30.00 of the order's 50.00 USD.
    await deposit(order, 19_700_000n);
    let page = await receipt(paymentId);
    expect(h1(page.body)).toBe('Part of the payment is missing');
    expect(orderNotice(page.body)).toEqual({
      state: 'underpaid',
      lines: [
        '20.00 of 50.00 USD arrived; 30.00 USD is missing.',
        'The shop will be told as soon as it reaches them that the order is short. Pay the rest below and the order is complete.',
        "19.7 USDC arrived of the 49.25 USDC this order should bring after the provider's fee.",
      ],
    });
    expect(page.body).toContain(`<form method="post" action="/payment/${paymentId}/rest">`);
    expect(page.body).toContain('Pay the missing 30.00 USD');
    // 29.55 USDC / (1 − 1.5 %) = 30.00 USD wherever the provider's minimum allows it: not UTORG's nor Simplex's 50 USD.
    const choices = restChoices(page.body);
    // MoonPay, the provider chosen last, first; three shown, the others behind "more".
    expect(choices[0]).toBe('moonpay 30.00 USD');
    expect(choices).toContain('banxa 30.00 USD');
    const shown = page.body.slice(0, page.body.indexOf('<details class="more-choices" id="more-rest">'));
    expect(restChoices(shown)).toHaveLength(3);
    expect(page.body).toContain(`<summary>${choices.length - 3} more providers</summary>`);
    expect(choices.some((choice) => /^(utorg|simplex|transfi) /.test(choice))).toBe(false);
    expect(page.body).not.toContain('the shop has been paid');
    expect(page.body).not.toContain('id="second-chance"');

    // Once its USDC is forwarded, the shop has its callback (order_state=underpaid): the page says it has been told.
    await fixture.db.pool.query(`DELETE FROM deposits WHERE wallet_id = $1`, [order.walletId]);
    await deposit(order, 19_700_000n, { forwarded: true });
    page = await receipt(paymentId);
    expect(orderNotice(page.body)?.lines[1]).toBe(
      'The shop has been told that the order is short. Pay the rest below and the order is complete.',
    );
    expect(h1(page.body)).toBe('Part of the payment is missing');

    // Another browser sees the same, and is told where the rest can be paid.
    const elsewhere = await receipt(paymentId, false);
    expect(orderNotice(elsewhere.body)?.lines[0]).toBe('20.00 of 50.00 USD arrived; 30.00 USD is missing.');
    expect(elsewhere.body).not.toContain('id="rest"');
    expect(orderNotice(elsewhere.body)?.lines[1]).toContain('You can pay the rest in the browser you started the payment in');
  });

  it('pays the rest as a new attempt on the same wallet that keeps the order’s expectation, and the order ends paid', async () => {
    const order = await newOrder();
    const first = await startPayment(order);
    await deposit(order, 19_700_000n, { forwarded: true });

    // A provider whose minimum the rest misses is refused, as is a form without the key.
    expect((await payRest(first, 'utorg')).statusCode).toBe(400);
    const response = await payRest(first, 'banxa');
    expect(response.statusCode).toBe(303);
    const rest = /^\/payment\/([0-9a-f-]{36})\/continue$/.exec(response.headers.location as string)?.[1];
    expect(rest).toBeDefined();
    const { rows } = await fixture.db.pool.query(
      `SELECT id, wallet_id::text, amount::text, currency, provider, email, completes, amount_usd::text, usd_rate, usd_rate_source,
              usd_rate_as_of, expected_usdc::text, expected_basis, tolerance_bps, window_ends_at
       FROM payments WHERE id = ANY($1::uuid[]) ORDER BY created_at`,
      [[first, rest]],
    );
    const [original, restRow] = rows;
    // The rest's own amount and provider; the order's expectation, whole; a window of its own, from now.
    expect(restRow).toEqual({
      ...original,
      id: rest,
      amount: '30.00',
      provider: 'banxa',
      completes: first,
      window_ends_at: expect.any(Date),
    });
    expect(original).toMatchObject({ amount: '50.00', completes: null, expected_usdc: '49250000', amount_usd: '50.00', usd_rate: '1' });
    expect(restRow.window_ends_at.getTime()).toBeGreaterThan(original.window_ends_at.getTime());

    // The rest's own receipt: its amount, the order it completes, still short until the rest arrives.
    let page = await receipt(rest!);
    expect(page.body).toContain('<p class="amount">30.00<small>USD</small></p>');
    expect(page.body).toContain('The rest of a 50.00 USD order');
    expect(orderNotice(page.body)?.state).toBe('underpaid');

    // The rest arrives: the order is judged whole, against its 49.25 USDC, and is paid.
    await deposit(order, 29_550_000n, { forwarded: true });
    page = await receipt(rest!);
    expect(h1(page.body)).toBe('Payment complete');
    expect(orderNotice(page.body)).toBeUndefined();
    expect(page.body).toContain('All of this 50.00 USD order arrived (49.25 USDC) and the shop has been paid.');
    page = await receipt(first);
    expect(h1(page.body)).toBe('Payment complete');
    expect(page.body).toContain('All of this 50.00 USD order arrived (49.25 USDC) and the shop has been paid.');
    expect(page.body).not.toContain('id="rest"');

    // Nothing is missing now: the rest's form is refused.
    const closed = await payRest(first, 'banxa');
    expect(closed.statusCode).toBe(409);
    expect(closed.body).toContain('Nothing is missing from this order');
  });

  it('a rest payment the provider declines offers the rest again, never the second chance for its amount alone', async () => {
    const order = await newOrder();
    const first = await startPayment(order);
    await deposit(order, 19_700_000n, { forwarded: true });
    const location = (await payRest(first, 'banxa')).headers.location as string;
    const rest = location.split('/')[2]!;
    await sandboxWebhook(
      app,
      config,
      { payment_id: rest, status: 'declined', order_id: 'sbx_r1', reason: 'Card declined' },
      { provider: 'banxa' },
    );
    const page = await receipt(rest);
    expect(h1(page.body)).toBe('Your card was declined');
    expect(page.body).not.toContain('id="second-chance"');
    expect(page.body).toContain(`<form method="post" action="/payment/${rest}/rest">`);
    expect(restChoices(page.body)).toContain('moonpay 30.00 USD');
    // The second chance's own form is refused for it: the rest's amount alone is not an order.
    const retry = await app.inject({
      method: 'POST',
      url: `/payment/${rest}/retry`,
      payload: new URLSearchParams({ provider: 'moonpay', form_token: secondChanceFormToken(keys.get(rest)!, rest) }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://pay.shop.test', ...keyCookie(rest) },
    });
    expect(retry.statusCode).toBe(409);
  });

  it('a rest no provider’s minimum allows: said plainly, with the shop told', async () => {
    const order = await newOrder();
    // 5.00 USD with Wert (its minimum 1 USD): 4.925 USDC expected; 4.425 arrived is 0.5 USDC short, beyond the 1 %.
    const paymentId = await startPayment(order, '5', 'wert');
    await deposit(order, 4_425_000n, { forwarded: true });
    const page = await receipt(paymentId);
    expect(h1(page.body)).toBe('Part of the payment is missing');
    // 0.5 / 4.925 of 5.00 = 0.5076… → 0.51 USD, and 0.5 / 0.985 = 0.5076… → 0.51 USD to ask: under every minimum.
    expect(orderNotice(page.body)?.lines.slice(0, 2)).toEqual([
      '4.49 of 5.00 USD arrived; 0.51 USD is missing.',
      'No payment provider takes an amount as small as 0.51 USD, so the rest cannot be paid here. The shop has been told that ' +
        'the order is short by 0.51 USD; contact the shop, quoting the payment reference below.',
    ]);
    expect(page.body).not.toContain('id="rest"');
    expect((await payRest(paymentId, 'wert')).statusCode).toBe(400);
  });

  it('a payment that had its second chances offers no rest, and says why', async () => {
    const order = await newOrder();
    const paymentId = await startPayment(order);
    await deposit(order, 19_700_000n, { forwarded: true });
    await fixture.db.pool.query('UPDATE payments SET second_chances = $2 WHERE id = $1', [paymentId, config.raw.SECOND_CHANCES_MAX]);
    const page = await receipt(paymentId);
    expect(orderNotice(page.body)?.lines[1]).toContain('This payment has been retried as many times as it may');
    expect(page.body).not.toContain('id="rest"');
    expect((await payRest(paymentId, 'banxa')).statusCode).toBe(409);
  });
});

describe('the other states of an order', () => {
  it('paid: as before, only now the order is judged paid', async () => {
    const order = await newOrder();
    const paymentId = await startPayment(order);
    await deposit(order, 49_250_000n, { forwarded: true });
    const page = await receipt(paymentId);
    expect(h1(page.body)).toBe('Payment complete');
    expect(page.body).toContain('49.25 USDC arrived and the shop has been paid for this order.');
    expect(orderNotice(page.body)).toBeUndefined();
  });

  it('overpaid: paid, and more than the order arrived; the shop has been told', async () => {
    const order = await newOrder();
    const paymentId = await startPayment(order);
    await deposit(order, 60_000_000n, { forwarded: true });
    const page = await receipt(paymentId);
    expect(h1(page.body)).toBe('Payment complete');
    expect(page.body).toContain('60 USDC arrived and the shop has been paid for this order.');
    // 60 of 49.25 USDC: 60 / 49.25 of 50.00 = 60.91 USD, 10.91 more.
    expect(orderNotice(page.body)).toEqual({
      state: 'overpaid',
      lines: [
        'More than the order arrived: 60.91 USD for a 50.00 USD order, 10.91 USD more.',
        'The shop has been told, and decides what to do with the difference; contact the shop about it, quoting the payment reference below.',
        "60 USDC arrived of the 49.25 USDC this order should bring after the provider's fee.",
      ],
    });
  });

  it('late: it arrived after the order’s window, and the shop decides', async () => {
    const order = await newOrder();
    const paymentId = await startPayment(order);
    await fixture.db.pool.query(`UPDATE payments SET window_ends_at = '2026-11-28T14:00:00Z' WHERE id = $1`, [paymentId]);
    await deposit(order, 49_250_000n, { forwarded: true });
    const page = await receipt(paymentId);
    expect(h1(page.body)).toBe('Your payment arrived late');
    expect(orderNotice(page.body)?.lines.slice(0, 2)).toEqual([
      "Your payment arrived after this order's window closed (28 November 2026 at 14:00 UTC).",
      'The shop has been told, and decides whether to accept it; contact the shop if you have a question, quoting the payment ' +
        'reference below.',
    ]);
    expect(page.body).not.toContain('the shop has been paid');
  });

  it('an order no attempt recorded an expectation for keeps the wording it had', async () => {
    const order = await newOrder();
    const paymentId = await startPayment(order);
    await fixture.db.pool.query(
      `UPDATE payments SET amount_usd = NULL, usd_rate = NULL, usd_rate_source = NULL, usd_rate_as_of = NULL, expected_usdc = NULL,
              expected_basis = NULL, tolerance_bps = NULL, window_ends_at = NULL WHERE id = $1`,
      [paymentId],
    );
    await deposit(order, 20_000_000n, { forwarded: true });
    const page = await receipt(paymentId);
    expect(h1(page.body)).toBe('Payment complete');
    expect(page.body).toContain('20 USDC arrived and the shop has been paid for this order.');
    expect(orderNotice(page.body)).toBeUndefined();
  });
});
