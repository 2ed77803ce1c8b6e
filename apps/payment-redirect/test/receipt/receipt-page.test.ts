import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { DECLINE_NEXT_TRY, sealAddressIn, secondChanceFormToken, type DeclineKind, type EvmAddress } from '@gateway/domain';
import { seedDelivery, seedDeposit, seedPayout } from '@gateway/app-testkit';
import type { PaymentRedirectConfig } from '../../src/config';
import { paymentRedirectFixture, payout } from '../support/payment-redirect-fixture';
import { sandboxWebhook } from '../support/sandbox';

// Return URLs are built from PUBLIC_URL; the first test checks them against it.
const fixture = paymentRedirectFixture('receipt', { PUBLIC_URL: 'https://pay.shop.test' });
let app: FastifyInstance;
let config: PaymentRedirectConfig;
const EMAIL = 'jane.doe@shop.io';

interface Order {
  walletId: string;
  addressIn: string;
  ipnToken: string;
}

let walletIndex = 0;
async function newOrder(): Promise<Order> {
  walletIndex += 1;
  const temporary = `0x${walletIndex.toString(16).padStart(40, 'a')}` as EvmAddress;
  const callbackUrl = `https://shop.io/ipn?order=${walletIndex}`;
  const addressIn = sealAddressIn(temporary, config.keys);
  const { walletId, ipnToken } = await fixture.insertWallet({ temporary, addressIn, callbackUrl, hdIndex: BigInt(walletIndex) });
  return { walletId, addressIn, ipnToken };
}

/** Each payment's key, as the customer's browser holds it (issue 35: the second chance needs it). */
const keys = new Map<string, string>();
const keyCookie = (paymentId: string) => ({ cookie: `payment_key=${keys.get(paymentId) ?? ''}` });

async function startPayment(order: Order, provider = 'moonpay', amount = '49.99'): Promise<string> {
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

// The other Polygon USDC (USDC_TOKEN_ADDRESS is native USDC by default), as the chain watcher records it.
const USDC_E = '0x2791bca1f2de4661ed88a30c99a7a9449aa84174';

let logIndex = 0;
async function addDeposit(
  order: Order,
  status: string,
  amount: bigint,
  token: string | null = null,
): Promise<{ id: string; txHash: string }> {
  logIndex += 1;
  return seedDeposit(fixture.db.pool, {
    logIndex,
    blockNumber: 100,
    blockHash: `0x${'b'.repeat(64)}`,
    walletId: order.walletId,
    fromAddress: '0x0000000000000000000000000000000000000001',
    amount,
    status,
    attentionReason: status === 'needs_attention' ? 'payout_address_blacklisted' : null,
    token: token ?? undefined,
  });
}

async function forward(order: Order, deposit: { id: string; txHash: string }, delivered: boolean): Promise<void> {
  await fixture.db.pool.query(`UPDATE deposits SET status = 'forwarded', forwarded_at = now() WHERE id = $1`, [deposit.id]);
  const { txHash: txOut } = await seedPayout(fixture.db.pool, {
    depositId: deposit.id,
    fromAddress: `0x${'a'.repeat(40)}`,
    toAddress: payout,
    status: 'confirmed',
  });
  await seedDelivery(fixture.db.pool, {
    walletId: order.walletId,
    depositId: deposit.id,
    valueCoin: 1n,
    valueForwardedCoin: 1n,
    feeCoin: 0n,
    txidIn: deposit.txHash,
    txidOut: txOut!,
    status: delivered ? 'delivered' : 'pending',
  });
}

const receipt = (paymentId: string) => app.inject({ url: `/payment/${paymentId}`, headers: keyCookie(paymentId) });

/** The page's steps as `<state>: <label> (<detail>)`, the step the payment stands at marked `*`. */
function stepsOf(body: string): string[] {
  const items = body.matchAll(/<li class="([a-z ]+)"( aria-current="step")?>([^<]*)(?:<span class="detail">([^<]*)<\/span>)?<\/li>/g);
  return [...items].map(([, state, current, label, detail]) => `${state}${current ? '*' : ''}: ${label}${detail ? ` (${detail})` : ''}`);
}

function webhook(provider: string, body: object, secret = config.sandbox!.signingSecret) {
  return sandboxWebhook(app, config, body, { provider, secret });
}

beforeAll(async () => {
  config = fixture.config();
  app = await fixture.build(config);
});

describe('GET /payment/<id>: the receipt page', () => {
  it("is every checkout link's return page", async () => {
    const order = await newOrder();
    const response = await app.inject({
      url: '/process-payment.php',
      query: { address: order.addressIn, amount: '49.99', provider: 'moonpay', email: EMAIL, currency: 'USD' },
    });
    const location = new URL(response.headers.location as string);
    expect(location.searchParams.get('return_url')).toBe(`https://pay.shop.test/payment/${location.searchParams.get('payment')}`);
  });

  it('waits for the provider, refreshing without JavaScript, and shows nothing personal', async () => {
    const order = await newOrder();
    const paymentId = await startPayment(order);
    const page = await receipt(paymentId);
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.body).toContain('Waiting for the payment provider');
    expect(page.body).toContain('data-final="false"');
    expect(page.body).toContain('<noscript><meta http-equiv="refresh" content="4"></noscript>');
    expect(page.body).toContain('49.99');
    expect(page.body).toContain('MoonPay');
    for (const secret of [EMAIL, 'jane', payout, payout.toLowerCase(), order.ipnToken, order.addressIn, 'shop.io/ipn']) {
      expect(page.body).not.toContain(secret);
    }
  });

  it('follows the deposit: received, confirmed, sent to the merchant (final, no refresh)', async () => {
    const order = await newOrder();
    const paymentId = await startPayment(order);
    const deposit = await addDeposit(order, 'seen', 49_240_150n);
    let page = await receipt(paymentId);
    expect(page.body).toContain('Payment received');
    expect(page.body).toContain('data-step="usdc_received"');
    expect(page.body).toContain('49.24015 USDC arrived');
    expect(page.body).toContain(`https://polygonscan.com/tx/${deposit.txHash}`);

    await fixture.db.pool.query(`UPDATE deposits SET status = 'final' WHERE id = $1`, [deposit.id]);
    page = await receipt(paymentId);
    expect(page.body).toContain('data-step="confirmed"');
    expect(page.body).toContain('Payment confirmed');

    await forward(order, deposit, false);
    page = await receipt(paymentId);
    expect(page.body).toContain('data-step="sent_to_merchant"');
    expect(page.body).toContain('data-final="true"');
    // What arrived, and that the shop was paid: never "the merchant has received 49.24015 USDC",
    // which the merchant did not (its payout is that less the fee and any affiliate's share).
    expect(page.body).toContain('49.24015 USDC arrived and the shop has been paid for this order.');
    expect(page.body).not.toMatch(/merchant has received/);
    expect(page.body).not.toContain('The shop has been notified');
    expect(page.body).not.toContain('http-equiv="refresh"');
    await fixture.db.pool.query(`UPDATE callback_deliveries SET status = 'delivered' WHERE deposit_id = $1`, [deposit.id]);
    expect((await receipt(paymentId)).body).toContain('The shop has been notified');
  });

  it('counts only deposits since the payment started, sums them, and waits for all of them', async () => {
    const order = await newOrder();
    const earlier = await addDeposit(order, 'forwarded', 7_000_000n);
    await fixture.db.pool.query(`UPDATE deposits SET seen_at = now() - interval '1 hour' WHERE id = $1`, [earlier.id]);
    const paymentId = await startPayment(order);
    const first = await addDeposit(order, 'seen', 10_000_000n);
    await forward(order, first, true);
    await addDeposit(order, 'seen', 2_500_000n);
    await addDeposit(order, 'orphaned', 99_000_000n);
    const page = await receipt(paymentId);
    expect(page.body).toContain('data-step="usdc_received"');
    expect(page.body).toContain('12.5 USDC arrived');
    expect(page.body).not.toContain(earlier.txHash);
    expect(page.body).toContain('Blockchain transactions');
  });

  it('says when a deposit is held as dust until the next payment into the wallet', async () => {
    const order = await newOrder();
    const paymentId = await startPayment(order);
    await addDeposit(order, 'held', 5_000n);
    const page = await receipt(paymentId);
    expect(page.body).toContain('reaches the merchant together with the next payment into this wallet');
    expect(page.body).toContain('data-final="true"');
    // Confirmed is done; the last step says where the USDC stopped, not "sent to the merchant".
    expect(stepsOf(page.body)).toEqual([
      'done: Waiting for the provider (MoonPay took the card payment)',
      'done: USDC received (0.005 USDC arrived)',
      'done: Confirmed on the blockchain',
      'held*: Not sent to the merchant yet (Held until the next payment into this wallet)',
    ]);
  });

  it('holds no step while another deposit is still on its way', async () => {
    const order = await newOrder();
    const paymentId = await startPayment(order);
    await addDeposit(order, 'held', 5_000n);
    await addDeposit(order, 'seen', 10_000_000n);
    const page = await receipt(paymentId);
    expect(page.body).toContain('data-final="false"');
    expect(stepsOf(page.body).slice(1)).toEqual([
      'current*: USDC received (10.005 USDC arrived)',
      'todo: Confirmed on the blockchain',
      'todo: Sent to the merchant',
    ]);
  });

  it('says when forwarding waits for the operator (the token refuses the payout)', async () => {
    const order = await newOrder();
    const paymentId = await startPayment(order);
    await addDeposit(order, 'needs_attention', 5_000_000n);
    const page = await receipt(paymentId);
    expect(page.body).toContain("needs the gateway operator's attention");
    expect(page.body).not.toContain('below the amount');
    expect(page.body).toContain('data-step="confirmed"');
    expect(stepsOf(page.body).slice(2)).toEqual([
      'done: Confirmed on the blockchain',
      'held*: Not sent to the merchant yet (Waiting for the gateway operator)',
    ]);
  });

  it('says in words when the customer paid in USDC.e: arrived, held for the operator, the shop not paid yet', async () => {
    const order = await newOrder();
    const paymentId = await startPayment(order);
    const held = await addDeposit(order, 'held_for_operator', 12_500_000n, USDC_E);
    const page = await receipt(paymentId);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>Paid in 12.5 USDC.e: held for the operator</h1>');
    expect(page.body).toContain('Your payment arrived, but in USDC.e, the bridged USDC, which this gateway does not forward to the shop');
    expect(page.body).toContain('the shop has not been paid yet. Contact the shop');
    expect(page.body).toContain('12.5 USDC.e arrived');
    expect(page.body).toContain('<dt>12.5 USDC.e</dt>');
    expect(page.body).toContain(held.txHash);
    expect(page.body).toContain('data-step="confirmed"');
    expect(stepsOf(page.body).slice(2)).toEqual([
      'done: Confirmed on the blockchain',
      'held*: Not sent to the merchant yet (USDC.e is held for the gateway operator)',
    ]);
    // Nothing changes on its own any more: the page stops refreshing, and never says the shop was paid.
    expect(page.body).toContain('data-final="true"');
    expect(page.body).not.toContain('the shop has been paid');
    expect(page.body).not.toContain('below the amount');
  });

  it('names each token when USDC and USDC.e both arrived', async () => {
    const order = await newOrder();
    const paymentId = await startPayment(order);
    await addDeposit(order, 'seen', 10_000_000n);
    await addDeposit(order, 'seen', 5_000_000n, USDC_E);
    const page = await receipt(paymentId);
    expect(page.body).toContain('10 USDC and 5 USDC.e arrived');
    expect(page.body).toContain('<dt>10 USDC</dt>');
    expect(page.body).toContain('<dt>5 USDC.e</dt>');
  });

  it('answers an unknown or malformed id with a 404 page', async () => {
    for (const id of [randomUUID(), 'not-a-uuid', '%3Cscript%3E', 'x'.repeat(90)]) {
      const page = await receipt(id);
      expect(page.statusCode).toBe(404);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.body).toContain('Payment not found');
      expect(page.body).not.toContain('<script>');
    }
  });

  it('serves its script and stylesheet', async () => {
    for (const asset of ['receipt.js', 'pages.css', 'frame-guard.js']) {
      expect((await app.inject({ url: `/assets/${asset}` })).statusCode).toBe(200);
    }
  });
});

describe('GET /payment/<id>: the words for each provider status', () => {
  it('a declined card: its own heading, the reason as a sentence, nothing said about "paid"', async () => {
    const order = await newOrder();
    const paymentId = await startPayment(order);
    await webhook('moonpay', { payment_id: paymentId, status: 'declined', order_id: 'sbx_w1', reason: 'Card declined by issuer' });
    const page = await receipt(paymentId);
    expect(page.body).toContain('<h1>Your card was declined</h1>');
    expect(page.body).toContain('Card declined by issuer.');
    expect(page.body).not.toContain('Card declined by issuer Nothing');
    expect(page.body).not.toContain('Paid with MoonPay');
    expect(page.body).toContain('Tried with MoonPay');
    expect(page.body).toContain('MoonPay declined the card. Nothing was charged.');
  });

  it('a failed payment: its own heading and sentence, the reason kept as the provider ended it', async () => {
    const order = await newOrder();
    const paymentId = await startPayment(order);
    await webhook('moonpay', { payment_id: paymentId, status: 'failed', order_id: 'sbx_w2', reason: 'The order expired before payment.' });
    const page = await receipt(paymentId);
    expect(page.body).toContain('<h1>The payment did not go through</h1>');
    expect(page.body).toContain('The order expired before payment.');
    expect(page.body).not.toContain('payment..');
    expect(page.body).toContain('MoonPay did not complete the payment and sent no USDC.');
    expect(page.body).not.toContain('Paid with MoonPay');
  });

  it('pending and paid at the provider, before any USDC: what the customer waits for', async () => {
    const order = await newOrder();
    const paymentId = await startPayment(order);
    let page = await receipt(paymentId);
    expect(page.body).toContain('<h1>Waiting for the payment provider</h1>');
    expect(page.body).toContain('Paying with MoonPay');
    await webhook('moonpay', { payment_id: paymentId, status: 'pending', order_id: 'sbx_w3' });
    page = await receipt(paymentId);
    expect(page.body).toContain('<h1>MoonPay is processing your payment</h1>');
    await webhook('moonpay', { payment_id: paymentId, status: 'paid', order_id: 'sbx_w3' });
    page = await receipt(paymentId);
    expect(page.body).toContain('<h1>MoonPay took your payment</h1>');
    expect(page.body).toContain('Paid with MoonPay');
    expect(page.body).toContain('MoonPay says it sent the USDC');
    expect(page.body).not.toContain('second-chance');
  });
});

describe('the second chance: another provider for the same order and wallet', () => {
  // As the receipt's form posts it, from the browser holding the key (payment-key.test.ts: anyone else is refused).
  const retry = async (paymentId: string, provider: string) => {
    const key = keys.get(paymentId) ?? '';
    const response = await app.inject({
      method: 'POST',
      url: `/payment/${paymentId}/retry`,
      payload: new URLSearchParams({ provider, form_token: secondChanceFormToken(key, paymentId) }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://pay.shop.test', ...keyCookie(paymentId) },
    });
    const next = response.cookies[0];
    if (next) keys.set(next.path!.split('/')[2]!, next.value);
    return response;
  };
  const offered = (body: string) => [...body.matchAll(/name="provider" value="([a-z0-9]+)"/g)].map((match) => match[1]);

  it('a declined payment offers, as one form each, the other providers that accept the order', async () => {
    const order = await newOrder();
    const paymentId = await startPayment(order);
    let page = await receipt(paymentId);
    expect(page.body).not.toContain('id="second-chance"');
    await webhook('moonpay', { payment_id: paymentId, status: 'declined', order_id: 'sbx_s1', reason: 'Card declined by issuer' });
    page = await receipt(paymentId);
    expect(page.body).toContain('id="second-chance"');
    expect(page.body).toContain(`<form method="post" action="/payment/${paymentId}/retry">`);
    const listed = offered(page.body);
    expect(listed).toContain('banxa');
    expect(listed).not.toContain('moonpay');
    // The hosted checkout's rule, not a second one: exactly what pay.php lists for this order, less MoonPay.
    const pay = await app.inject({ url: '/pay.php', query: { address: order.addressIn, amount: '49.99', email: EMAIL, currency: 'USD' } });
    const payListed = [...pay.body.matchAll(/<a class="provider" href="[^"]*" data-provider="([a-z0-9]+)"/g)].map((match) => match[1]);
    expect(payListed.length).toBeGreaterThan(2);
    expect([...listed].sort()).toEqual(payListed.filter((id) => id !== 'moonpay').sort());
    expect(page.body).not.toContain('Go back to the shop');
  });

  it('records a new payment for the same wallet, amount, currency and e-mail, and sends the browser to its checkout', async () => {
    const order = await newOrder();
    const first = await startPayment(order);
    await webhook('moonpay', { payment_id: first, status: 'failed', order_id: 'sbx_s2' });
    const response = await retry(first, 'banxa');
    expect(response.statusCode).toBe(303);
    const location = response.headers.location as string;
    const second = /^\/payment\/([0-9a-f-]{36})\/continue$/.exec(location)?.[1];
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    // The form's redirect stays on this host (form-action 'self'); the page goes on to the new payment's link.
    const onward = await app.inject({ url: location });
    expect(onward.statusCode).toBe(200);
    expect(onward.body).toContain(`<meta http-equiv="refresh" content="0;url=/payment/${second}/checkout">`);
    expect(onward.body).toContain(`<a class="button" id="continue" href="/payment/${second}/checkout">Continue to Banxa</a>`);
    const { rows } = await fixture.db.pool.query(
      'SELECT wallet_id::text, amount::text, currency, email, provider, status FROM payments WHERE id = ANY($1::uuid[]) ORDER ' +
        'BY created_at',
      [[first, second]],
    );
    expect(rows[1]).toEqual({ ...rows[0], provider: 'banxa', status: 'redirected' });
    expect(rows[1].wallet_id).toBe(order.walletId);
    const checkout = await app.inject({ url: `/payment/${second}/checkout`, headers: keyCookie(second!) });
    expect(checkout.statusCode).toBe(302);
    expect(new URL(checkout.headers.location as string).searchParams.get('payment')).toBe(second);

    // The first attempt's page points at the one the customer chose next.
    const page = await receipt(first);
    expect(page.body).toContain('You chose Banxa next.');
    expect(page.body).toContain(`href="/payment/${second}"`);
  });

  it('refuses the provider that gave up, one that does not take the order, or none, with a 400 page; no payment is recorded', async () => {
    const order = await newOrder();
    const paymentId = await startPayment(order);
    await webhook('moonpay', { payment_id: paymentId, status: 'declined', order_id: 'sbx_s3' });
    for (const provider of ['moonpay', 'interac', 'nosuchprovider', '']) {
      const response = await retry(paymentId, provider);
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.body).toContain(`href="/payment/${paymentId}"`);
    }
    expect((await retry(paymentId, 'moonpay')).body).toContain('MoonPay cannot take this order');
    const { rows } = await fixture.db.pool.query('SELECT count(*)::int AS n FROM payments WHERE wallet_id = $1', [order.walletId]);
    expect(rows[0].n).toBe(1);
  });

  it('answers an oversized or foreign body with a 4xx, never a 500', async () => {
    const order = await newOrder();
    const paymentId = await startPayment(order);
    await webhook('moonpay', { payment_id: paymentId, status: 'declined', order_id: 'sbx_s6' });
    const url = `/payment/${paymentId}/retry`;
    const huge = await app.inject({
      method: 'POST',
      url,
      payload: `provider=banxa&pad=${'x'.repeat(4096)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(huge.statusCode).toBe(413);
    // Not a form: no provider chosen, and no form token either (403 before anything else is looked at).
    const headers = keyCookie(paymentId);
    const foreign = await app.inject({
      method: 'POST',
      url,
      payload: 'provider=banxa',
      headers: { ...headers, 'content-type': 'text/plain' },
    });
    expect(foreign.statusCode).toBe(403);
    const binary = await app.inject({
      method: 'POST',
      url,
      payload: 'x',
      headers: { ...headers, 'content-type': 'application/octet-stream' },
    });
    expect(binary.statusCode).toBe(415);
    const empty = await app.inject({ method: 'POST', url, headers });
    expect(empty.statusCode).toBe(403);
  });

  it('is not open while the provider is working or once USDC arrived (409), nor for an unknown payment (404)', async () => {
    const order = await newOrder();
    const paymentId = await startPayment(order);
    expect((await retry(paymentId, 'banxa')).statusCode).toBe(409);
    await webhook('moonpay', { payment_id: paymentId, status: 'declined', order_id: 'sbx_s4' });
    await addDeposit(order, 'seen', 49_000_000n);
    const closed = await retry(paymentId, 'banxa');
    expect(closed.statusCode).toBe(409);
    expect(closed.body).toContain('This payment cannot be retried');
    expect((await retry(randomUUID(), 'banxa')).statusCode).toBe(404);
    expect((await retry('not-a-uuid', 'banxa')).statusCode).toBe(404);
  });

  it('credits the USDC to the attempt that paid: its page follows it, the declined one names it', async () => {
    const order = await newOrder();
    const first = await startPayment(order);
    await webhook('moonpay', { payment_id: first, status: 'declined', order_id: 'sbx_s5', reason: 'Card declined by issuer' });
    const location = (await retry(first, 'banxa')).headers.location as string;
    const second = /^\/payment\/([0-9a-f-]{36})\/continue$/.exec(location)?.[1] as string;
    await addDeposit(order, 'seen', 49_240_150n);
    const paid = await receipt(second);
    expect(paid.body).toContain('<h1>Payment received</h1>');
    expect(paid.body).toContain('Paid with Banxa');
    expect(paid.body).toContain('49.24015 USDC arrived');
    const declined = await receipt(first);
    expect(declined.body).toContain('<h1>Paid with Banxa</h1>');
    expect(declined.body).toContain('Tried with MoonPay');
    expect(declined.body).toContain(`href="/payment/${second}"`);
    expect(declined.body).not.toContain('id="second-chance"');
    expect(declined.body).not.toContain('USDC arrived');
    expect(declined.body).toContain('data-final="true"');
  });

  it('credits the USDC to the attempt whose provider reported its transaction, even the earlier one', async () => {
    const order = await newOrder();
    const first = await startPayment(order);
    await webhook('moonpay', { payment_id: first, status: 'failed', order_id: 'sbx_s7' });
    const location = (await retry(first, 'banxa')).headers.location as string;
    const second = /^\/payment\/([0-9a-f-]{36})\/continue$/.exec(location)?.[1] as string;
    // MoonPay was late after all: its signed webhook names the transaction it sent.
    const deposit = await addDeposit(order, 'seen', 49_240_150n);
    const late = await webhook('moonpay', { payment_id: first, status: 'paid', order_id: 'sbx_s7', tx_hash: deposit.txHash.toUpperCase() });
    expect(late.headers['x-webhook-outcome']).toBe('updated');
    const { rows } = await fixture.db.pool.query('SELECT provider_tx_hash FROM payments WHERE id = $1', [first]);
    expect(rows[0].provider_tx_hash).toBe(deposit.txHash);
    const paid = await receipt(first);
    expect(paid.body).toContain('<h1>Payment received</h1>');
    expect(paid.body).toContain('Paid with MoonPay');
    const other = await receipt(second);
    expect(other.body).toContain('<h1>Paid with MoonPay</h1>');
    expect(other.body).toContain(`href="/payment/${first}"`);
  });
});

describe('POST /webhooks/<provider>', () => {
  it('shows a declined card on the receipt, and a later success replaces it; paid is final', async () => {
    const order = await newOrder();
    const paymentId = await startPayment(order);
    const declined = await webhook('moonpay', {
      payment_id: paymentId,
      status: 'declined',
      order_id: 'sbx_1',
      reason: 'Your card was declined.',
    });
    expect(declined.statusCode).toBe(200);
    expect(declined.json()).toEqual({ received: true });
    expect(declined.headers['x-webhook-outcome']).toBe('updated');
    let page = await receipt(paymentId);
    expect(page.body).toContain('<h1>Your card was declined</h1>');
    expect(page.body).toContain('<p class="reason">MoonPay\'s reason: Your card was declined.</p>');

    expect((await webhook('moonpay', { payment_id: paymentId, status: 'paid', order_id: 'sbx_1' })).headers['x-webhook-outcome']).toBe(
      'updated',
    );
    expect((await webhook('moonpay', { payment_id: paymentId, status: 'declined', order_id: 'sbx_1' })).headers['x-webhook-outcome']).toBe(
      'unchanged',
    );
    page = await receipt(paymentId);
    expect(page.body).toContain('<h1>MoonPay took your payment</h1>');
    const { rows } = await fixture.db.pool.query(
      'SELECT provider_status, provider_raw_status, provider_reference FROM payments WHERE id = $1',
      [paymentId],
    );
    expect(rows[0]).toEqual({ provider_status: 'paid', provider_raw_status: 'paid', provider_reference: 'sbx_1' });
  });

  it('says the card was charged and the USDC is on its way, before the provider sends it', async () => {
    const order = await newOrder();
    const paymentId = await startPayment(order);
    expect((await receipt(paymentId)).body).toContain('Finish paying on MoonPay&#39;s page');
    await fixture.db.pool.query(`UPDATE payments SET provider_status = 'charged' WHERE id = $1`, [paymentId]);
    let page = await receipt(paymentId);
    expect(page.body).toContain('<h1>MoonPay charged your card</h1>');
    expect(page.body).toContain('MoonPay charged the card; the USDC is on its way');
    await fixture.db.pool.query(`UPDATE payments SET provider_status = 'paid' WHERE id = $1`, [paymentId]);
    page = await receipt(paymentId);
    expect(page.body).toContain('MoonPay says it sent the USDC; it has not arrived yet');
  });

  it('refuses a bad signature and an unknown provider; acknowledges an authentic one about no payment of that provider without recording it', async () => {
    const order = await newOrder();
    const paymentId = await startPayment(order);
    const forged = await webhook('moonpay', { payment_id: paymentId, status: 'paid', order_id: 'x' }, randomBytes(32));
    expect(forged.statusCode).toBe(401);
    expect(forged.json()).toMatchObject({ status: 'error', code: 'unauthorized' });
    expect((await webhook('nosuch', { payment_id: paymentId, status: 'paid', order_id: 'x' })).statusCode).toBe(404);
    // Authentic, so answered as the provider expects (a retry would not find it either); nothing recorded.
    for (const [provider, id] of [
      ['moonpay', randomUUID()],
      ['transak', paymentId],
      ['moonpay', 'not-a-uuid'],
    ] as const) {
      const unknown = await webhook(provider, { payment_id: id, status: 'paid', order_id: 'x' });
      expect(unknown.statusCode).toBe(200);
      expect(unknown.headers['x-webhook-outcome']).toBe('unknown_payment');
    }
    const junk = await app.inject({
      method: 'POST',
      url: '/webhooks/moonpay',
      payload: '{',
      headers: { 'content-type': 'application/json' },
    });
    expect(junk.statusCode).toBe(401);
    const { rows } = await fixture.db.pool.query('SELECT provider_status FROM payments WHERE id = $1', [paymentId]);
    expect(rows[0].provider_status).toBeNull();
  });
});

describe('the second chance after each kind of decline: ordered by it, headed by what happened and what to try', () => {
  interface NextTry {
    id: string;
    facts: string[];
    shown: 'recommended' | 'more';
  }
  /** The second chance's rows as the page renders them, in order, with their facts and where they are shown. */
  const nextTries = (html: string): NextTry[] => {
    const section = html.slice(
      html.indexOf('<section id="second-chance"'),
      html.indexOf('</section>', html.indexOf('<section id="second-chance"')),
    );
    const disclosure = section.indexOf('<details class="more-choices"');
    return [...section.matchAll(/<button type="submit" class="choice" data-provider="([a-z0-9]+)">([\s\S]*?)<\/button>/g)].map((match) => ({
      id: match[1]!,
      facts: [...match[2]!.matchAll(/<span class="fact ([a-z-]+)">(.*?)<\/span>/g)].map((fact) => `${fact[1]}: ${fact[2]}`),
      shown: disclosure !== -1 && match.index! > disclosure ? 'more' : 'recommended',
    }));
  };
  const declined = async (kind: DeclineKind, amount = '49.99') => {
    const order = await newOrder();
    const paymentId = await startPayment(order, 'moonpay', amount);
    const status = kind === 'abandoned' || kind === 'other' ? 'failed' : 'declined';
    await webhook('moonpay', { payment_id: paymentId, status, order_id: `sbx_k_${kind}`, decline_kind: kind });
    const page = await receipt(paymentId);
    expect(page.statusCode).toBe(200);
    return { html: page.body, rows: nextTries(page.body), pay: async () => payListed(order, amount) };
  };
  const payListed = async (order: Order, amount: string) => {
    const pay = await app.inject({ url: '/pay.php', query: { address: order.addressIn, amount, email: EMAIL, currency: 'USD' } });
    return [...pay.body.matchAll(/<a class="provider" href="[^"]*" data-provider="([a-z0-9]+)"/g)].map((match) => match[1]!);
  };
  const sentence = (html: string) => /<p id="next-try">(.*?)<\/p>/.exec(html)?.[1]?.replace(/&#39;/g, "'");
  const preferredFirst = (rows: NextTry[], mark: RegExp) => {
    const marked = rows.map((row) => row.facts.some((fact) => mark.test(fact)));
    // Every preferred row before every other.
    expect(marked.indexOf(false) === -1 || marked.lastIndexOf(true) < marked.indexOf(false)).toBe(true);
    return rows.filter((_row, index) => marked[index]).map((row) => row.id);
  };

  it('card refused: the providers offering Apple Pay, Google Pay or a bank transfer first, marked so', async () => {
    const { html, rows } = await declined('card_refused');
    expect(sentence(html)).toBe(DECLINE_NEXT_TRY.card_refused.message.text);
    const preferred = preferredFirst(rows, /^fact-preferred: Pay (with (Apple Pay|Google Pay)|by bank transfer)/);
    expect(preferred.length).toBeGreaterThanOrEqual(3);
    expect(rows.filter((row) => row.shown === 'recommended').every((row) => preferred.includes(row.id))).toBe(true);
    // Card-only providers wait behind the disclosure; MoonPay, which declined, is not offered.
    expect(rows.find((row) => row.id === 'wert')?.shown).toBe('more');
    expect(rows.map((row) => row.id)).not.toContain('moonpay');
    expect(html).toMatch(/<summary>More providers \(\d+\)<\/summary>/);
  });

  it('identity check failed: the providers documenting lighter checks for this amount first', async () => {
    const { html, rows } = await declined('identity_failed');
    expect(sentence(html)).toBe(DECLINE_NEXT_TRY.identity_failed.message.text);
    const preferred = preferredFirst(rows, /^fact-preferred: Lighter identity checks for this amount$/);
    // Wert documents lighter checks up to 1000 USD, Transak up to 200 USD.
    expect(preferred).toEqual(expect.arrayContaining(['wert', 'transak']));
  });

  it('over a limit: those whose documented maximum allows the amount first, those it exceeds last and marked', async () => {
    const { html, rows } = await declined('over_limit', '600');
    expect(sentence(html)).toBe(DECLINE_NEXT_TRY.over_limit.message.text);
    expect(rows.at(-1)).toMatchObject({ id: 'coinbase', shown: 'more' });
    expect(rows.at(-1)?.facts[0]).toBe('fact-warning: This amount is over its limit of 500 USD');
    expect(rows.filter((row) => row.facts.some((fact) => fact.startsWith('fact-warning')))).toHaveLength(1);
  });

  it.each(['country_unserved', 'abandoned', 'other'] as const)(
    '%s: its sentence; without a country or a rule that tells the rows apart, the hosted checkout order',
    async (kind) => {
      const { html, rows, pay } = await declined(kind);
      expect(sentence(html)).toBe(DECLINE_NEXT_TRY[kind].message.text);
      expect(rows.map((row) => row.id)).toEqual((await pay()).filter((id) => id !== 'moonpay'));
      expect(rows.filter((row) => row.shown === 'recommended')).toHaveLength(5);
      expect(rows.some((row) => row.facts.some((fact) => fact.startsWith('fact-preferred')))).toBe(false);
    },
  );
});

describe('a webhook the adapter cannot process now', () => {
  it('answers 503 with Retry-After, so the provider sends it again', async () => {
    const spy = jest
      .spyOn(app.providers.adapter('banxa')!, 'verifyWebhook')
      .mockRejectedValue(new Error('Banxa Get Order for b1 answered HTTP 500'));
    const response = await app.inject({
      method: 'POST',
      url: '/webhooks/banxa',
      payload: '{"order_id":"b1"}',
      headers: { 'content-type': 'application/json' },
    });
    spy.mockRestore();
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('60');
    expect(response.json()).toMatchObject({ code: 'service_unavailable' });
    expect(response.body).not.toContain('Get Order');
  });
});

describe('production', () => {
  it('refuses to boot with the sandbox on', () => {
    expect(() => fixture.config({ NODE_ENV: 'production', PUBLIC_URL: 'https://pay.example.org', RATE_SOURCE: 'ecb' })).toThrow(
      /SANDBOX_CHECKOUT: on is refused in production/,
    );
  });
});
