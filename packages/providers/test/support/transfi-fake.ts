import { randomBytes } from 'node:crypto';
import { basicAuthorization, jsonAnswer, sentAsJson, startDocumentedFake } from './documented-fake';
import type { DocumentedFake, FakeAnswer, FakeRequest } from './documented-fake';

/**
 * A local TransFi (sandbox), answering as docs.transfi.com documents its ramp flow:
 * POST /v2/orders/deposit (create, answering orderId and the hosted paymentUrl) and
 * GET /v2/orders/{orderId} (Get Order). Every call must carry `Authorization: Basic
 * base64(username:password)` and the `MID` header; a create must be JSON with the fields of a buy
 * order. Tests set an order's status.
 */
export interface TransfiFakeOrder {
  orderId: string;
  request: Record<string, unknown>;
  status: string;
}

export interface TransfiFake extends DocumentedFake {
  /** The orders created, by orderId. */
  orders: Map<string, TransfiFakeOrder>;
  /** The order a paymentUrl stands for (by its paytoken). */
  orderOfPaymentUrl(url: string): TransfiFakeOrder | undefined;
}

export const FAKE_TRANSFI = { username: 'shop_sandbox', password: 'Zq7xK2mP9wL4tR8vB3nC6yD1hJ5gF0sA', mid: 'ABCDEF_NA_NA' } as const;

export async function startTransfiFake(expected = FAKE_TRANSFI): Promise<TransfiFake> {
  const orders = new Map<string, TransfiFakeOrder>();
  const byToken = new Map<string, TransfiFakeOrder>();
  const authentic = (request: FakeRequest) =>
    [
      fake.check(
        request.headers.authorization === basicAuthorization(expected.username, expected.password),
        `${request.path}: Authorization is not Basic username:password`,
      ),
      fake.check(request.headers.mid === expected.mid, `${request.path}: MID header missing or wrong`),
    ].every(Boolean);

  function create(request: FakeRequest): FakeAnswer {
    if (!authentic(request)) return jsonAnswer(401, { message: 'Unauthorized' });
    const { check } = fake;
    check(sentAsJson(request), 'create: content-type not JSON');
    const body = fake.jsonBody(request);
    if (!body) return jsonAnswer(400, { message: 'Invalid JSON' });
    const withdraw = (body.withdrawDetails ?? {}) as Record<string, unknown>;
    const ok = [
      check(typeof body.amount === 'number' && body.amount > 0, 'create: amount is not a positive number'),
      check(typeof body.currency === 'string' && /^[A-Z]{3}$/.test(body.currency), 'create: currency is not a code'),
      check(typeof body.email === 'string' && body.email.includes('@'), 'create: email missing'),
      check(typeof body.paymentType === 'string', 'create: paymentType missing'),
      check(typeof body.purposeCode === 'string', 'create: purposeCode missing'),
      check(typeof body.redirectUrl === 'string' && body.redirectUrl.startsWith('https://'), 'create: redirectUrl not https'),
      check(typeof withdraw.cryptoTicker === 'string', 'create: withdrawDetails.cryptoTicker missing'),
      check(typeof withdraw.walletAddress === 'string' && /^0x[0-9a-fA-F]{40}$/.test(withdraw.walletAddress), 'create: wallet missing'),
    ].every(Boolean);
    if (!ok) return jsonAnswer(400, { message: 'Validation failed' });
    const orderId = `OR-${Date.now()}${randomBytes(3).readUIntBE(0, 3)}`;
    const paytoken = [4, 2, 2, 2, 6].map((n) => randomBytes(n).toString('hex')).join('-');
    const order: TransfiFakeOrder = { orderId, request: body, status: 'initiated' };
    orders.set(orderId, order);
    byToken.set(paytoken, order);
    return jsonAnswer(200, {
      orderId,
      paymentUrl: `https://sandbox-pay-widget.transfi.com/pay?paytoken=${paytoken}`,
      partnerContext: body.partnerContext ?? {},
      redirectUrl: body.redirectUrl,
    });
  }

  function getOrder(request: FakeRequest, [orderId]: string[]): FakeAnswer {
    if (!authentic(request)) return jsonAnswer(401, { message: 'Unauthorized' });
    const order = orders.get(orderId!);
    if (!order) return jsonAnswer(404, { message: 'Order not found' });
    const withdraw = order.request.withdrawDetails as Record<string, unknown>;
    return jsonAnswer(200, {
      data: {
        orderId,
        type: 'buy',
        depositCurrency: order.request.currency,
        depositAmount: order.request.amount,
        withdrawCurrency: withdraw.cryptoTicker,
        withdrawAmount: 42.5,
        status: order.status,
        walletAddress: withdraw.walletAddress,
        mid: expected.mid,
        partnerId: order.request.partnerId,
        partnerContext: order.request.partnerContext,
      },
    });
  }

  const fake = await startDocumentedFake({
    routes: [
      { method: 'POST', path: '/v2/orders/deposit', answer: create },
      { method: 'GET', path: /^\/v2\/orders\/(OR-[A-Za-z0-9-]+)$/, answer: getOrder },
    ],
    refusal: (status, message) => jsonAnswer(status, { message }),
    reset: () => {
      orders.clear();
      byToken.clear();
    },
  });
  return Object.assign(fake, {
    orders,
    orderOfPaymentUrl: (url: string) => byToken.get(new URL(url).searchParams.get('paytoken') ?? ''),
  });
}
