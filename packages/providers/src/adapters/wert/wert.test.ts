import { describeHostileWebhooks, sampleOrder } from '../../../test/support/adapter-contract';
import { redirectCheckout } from '../../../test/support/checkout-target';
import { describeSessionAdapter } from '../../../test/support/session-adapter-suite';
import { sentWertBody, WERT_PARTNER_ID, wertSession } from '../../../test/support/wert-session';
import { wert } from './wert-adapter';
import { WERT_ORDER_EVENTS, WERT_ORDER_STATUS, wertWebhookEvent } from './wert-order';
import { wertOrderEvent } from './wert-order';

const kit = describeSessionAdapter(wertSession(wert));
const { build, open } = kit;
const sentBody = (index: number) => sentWertBody(kit.fake, index);

/** An order as the Data API page shows one (its example's fields; USDC on Polygon here). */
const dataApiOrder = (fields: Record<string, unknown>) => ({
  order_id: '01GMAPHCFE06G3Y8FG2KW9BAM0',
  click_id: sampleOrder('USD').paymentId,
  currency: 'usd',
  currency_amount: 149.99,
  crypto: 'usdc.sc.polygon',
  crypto_amount: 149.1,
  user_id: '01GJMAVBKQYNKGCFSPE4QTN4AC',
  status: 'pending',
  created_at: '2026-11-25 10:51:02',
  changed_at: '2026-11-25 10:55:47',
  address: sampleOrder('USD').walletAddress,
  ...fields,
});

describe('wert session against a local Wert', () => {
  it('is a JSON POST with X-Api-Key and the restricted flow; the widget URL carries the session, click_id and redirect_url', async () => {
    const order = sampleOrder('USD');
    const created = redirectCheckout(await open(order, { mode: 'live' }));
    const [request] = kit.fake.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/api/external/hpp/create-session' });
    expect(request!.headers['x-api-key']).toBe(kit.fake.apiKey);
    // The amount is a JSON number written as the decimal string was: no float in between.
    expect(request!.body.endsWith(',"currency_amount":149.99}')).toBe(true);
    expect(sentBody(0)).toEqual({
      flow_type: 'simple_full_restrict',
      commodity: 'USDC',
      network: 'polygon',
      wallet_address: order.walletAddress,
      currency: 'USD',
      currency_amount: 149.99,
    });
    const url = new URL(created.url);
    expect(url.origin + url.pathname).toBe(`https://widget.wert.io/${WERT_PARTNER_ID}/widget`);
    expect(url.searchParams.get('session_id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(url.searchParams.get('click_id')).toBe(order.paymentId);
    expect(url.searchParams.get('redirect_url')).toBe(order.returnUrl);
    expect([...url.searchParams.keys()].sort()).toEqual(['click_id', 'redirect_url', 'session_id']);
    expect(created.expiresAt).toBeUndefined();
    expect(new URL(redirectCheckout(await open(order, { mode: 'test' })).url).origin).toBe('https://sandbox.wert.io');
  });
});

describe('wert status look-up (Data API)', () => {
  const signal = () => AbortSignal.timeout(3000);
  const query = { paymentId: sampleOrder('USD').paymentId };

  it('asks GET /api/external/orders?search_by=<payment id> with X-API-KEY; null while Wert has no order', async () => {
    const adapter = await build();
    await expect(adapter.status!(query, { signal: signal() })).resolves.toBeNull();
    const [request] = kit.fake.requests;
    expect(request!.method).toBe('GET');
    expect(request!.path).toBe(`/api/external/orders?search_by=${query.paymentId}`);
    expect(request!.headers['x-api-key']).toBe(kit.fake.apiKey);
  });

  it('the newest order with our click_id speaks: success is paid, with its transaction', async () => {
    const adapter = await build();
    kit.fake.addOrder(dataApiOrder({ order_id: 'OLD', status: 'failed', created_at: '2026-11-25 10:40:00' }));
    kit.fake.addOrder(dataApiOrder({ status: 'success', tx_id: `0x${'ef'.repeat(32)}` }));
    await expect(adapter.status!(query, { signal: signal() })).resolves.toEqual({
      match: {
        paymentId: query.paymentId,
        providerReference: '01GMAPHCFE06G3Y8FG2KW9BAM0',
        walletAddress: sampleOrder('USD').walletAddress,
      },
      status: 'paid',
      rawStatus: 'success',
      providerReference: '01GMAPHCFE06G3Y8FG2KW9BAM0',
      destination: { address: sampleOrder('USD').walletAddress },
      txHash: `0x${'ef'.repeat(32)}`,
    });
  });

  it("a stranger's newer order under our click_id does not hide ours: the pinned order, else the newest to the wallet, speaks", async () => {
    const adapter = await build();
    const wallet = sampleOrder('USD').walletAddress;
    const stranger = '0x9999999999999999999999999999999999999999';
    kit.fake.addOrder(dataApiOrder({ order_id: 'OURS', status: 'success', created_at: '2026-11-25 10:40:00' }));
    kit.fake.addOrder(dataApiOrder({ order_id: 'STRANGER', status: 'failed', address: stranger, created_at: '2026-11-25 11:40:00' }));
    const read = (extra: object) => adapter.status!({ ...query, ...extra }, { signal: signal() });
    await expect(read({ walletAddress: wallet.toLowerCase() })).resolves.toMatchObject({ providerReference: 'OURS', status: 'paid' });
    await expect(read({ providerReference: 'OURS' })).resolves.toMatchObject({ providerReference: 'OURS' });
    await expect(read({ providerReference: 'GONE', walletAddress: wallet })).resolves.toBeNull();
    // None to the wallet: the newest speaks, with its destination, which the gateway then refuses as another wallet's.
    await expect(read({ walletAddress: '0x1111111111111111111111111111111111111111' })).resolves.toMatchObject({
      providerReference: 'STRANGER',
      destination: { address: stranger },
    });
  });

  it('an order of another click_id is not ours; an unmapped status says nothing yet', async () => {
    const adapter = await build();
    kit.fake.script = () => ({
      status: 200,
      body: JSON.stringify({ success: true, data: [dataApiOrder({ click_id: 'other', status: 'success' })] }),
    });
    await expect(adapter.status!(query, { signal: signal() })).resolves.toBeNull();
    kit.fake.script = undefined;
    kit.fake.addOrder(dataApiOrder({ status: 'failover' }));
    await expect(adapter.status!(query, { signal: signal() })).resolves.toBeNull();
  });

  it.each(Object.entries(WERT_ORDER_STATUS).map(([raw, mapped]) => [raw, mapped.status] as const))(
    'order status %s maps to %s',
    async (raw, status) => {
      kit.fake.addOrder(dataApiOrder({ status: raw }));
      await expect((await build()).status!(query, { signal: signal() })).resolves.toMatchObject({ status, rawStatus: raw });
    },
  );
});

describe('wert webhook (unsigned: a hint)', () => {
  const o = sampleOrder('USD');
  const webhook = (type: string) => ({
    type,
    click_id: o.paymentId,
    order: {
      id: '01GMAPHCFE06G3Y8FG2KW9BAM0',
      base: 'USDC',
      base_amount: '149.1',
      quote: 'USD',
      quote_amount: '149.99',
      address: o.walletAddress,
    },
  });

  it('the descriptor says its webhooks are unsigned, and the adapter looks orders up', async () => {
    expect(wert.descriptor.webhookUnsigned).toBe(true);
    expect((await build()).status).toBeInstanceOf(Function);
  });

  it.each(Object.entries(WERT_ORDER_EVENTS))('event %s names the payment (%s)', async (type, status) => {
    const outcome = await (await build()).verifyWebhook(Buffer.from(JSON.stringify(webhook(type))), {});
    expect(outcome).toMatchObject({
      kind: 'event',
      event: { status, rawStatus: type, match: { paymentId: o.paymentId, providerReference: '01GMAPHCFE06G3Y8FG2KW9BAM0' } },
      acknowledgement: { statusCode: 200 },
    });
  });

  it('ignores the events about no order (login, KYC); refuses a body without a type', () => {
    expect(wertWebhookEvent(Buffer.from(JSON.stringify({ type: 'login', click_id: o.paymentId }))).kind).toBe('ignored');
    expect(wertWebhookEvent(Buffer.from(JSON.stringify({ type: 'verify_success', click_id: o.paymentId }))).kind).toBe('ignored');
    expect(() => wertWebhookEvent(Buffer.from('{"click_id":"x"}'))).toThrow(/type/);
    expect(() => wertWebhookEvent(Buffer.from('nope'))).toThrow(/JSON/);
  });

  // Unsigned: anyone may post anything; hostile bodies are read into well-typed fields, ignored or refused, never another error.
  describeHostileWebhooks(build, webhook('order_complete'), (payload) => ({ rawBody: Buffer.from(JSON.stringify(payload)), headers: {} }));
});

// Orders of the Data API (https://docs.wert.io/docs/data-api): failed and canceled say no more.
describe('wert decline kinds', () => {
  it('failed and canceled are other; success none', () => {
    const kind = (status: string) => wertOrderEvent({ status, click_id: 'pay-14', order_id: 'w-14' })?.declineKind;
    expect(kind('failed')).toBe('other');
    expect(kind('canceled')).toBe('other');
    expect(kind('success')).toBeUndefined();
  });
});
