// A small tea shop that takes card payments through the gateway with the merchant SDK alone: a
// page with a cart, a "pay" button that creates the order's wallet and sends the customer to the
// gateway's checkout, and the callback that verifies the gateway's signature and marks the order
// paid. Orders live in memory: a real shop keeps them in its database.
import type { JsonWebKey } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  CALLBACK_DELIVERY_ID_HEADER,
  CALLBACK_SIGNATURE_HEADER,
  type CallbackOrderState,
  GatewayClient,
  GatewayRequestError,
  verifyCallbackOrder,
  verifyCallbackSignature,
} from '@usdc-card-gateway/sdk';

export interface ShopOptions {
  /** The gateway's two hosts. */
  baseUrl: string;
  paymentUrl: string;
  /** The shop's USDC address on Polygon. */
  payoutAddress: string;
  /**
   * The gateway's callback keys, pinned: read from the shop's configuration at start
   * (pinnedCallbackKeys), never fetched from the gateway after a failed check, since whoever runs
   * code on the gateway's API host serves that JWK set and could serve a key of their own.
   */
  callbackKeys: readonly JsonWebKey[];
  /** Where the gateway reaches this shop (its callback origin), e.g. https://tea.example. */
  shopUrl: string;
  /** The gateway's platform fee in basis points (its operator publishes it): what comes off before the USDC reaches the shop. */
  platformFeeBps?: number;
  /**
   * What the shop lets the card on-ramp keep, in basis points of the price: providers take their fee
   * out of the card payment, so a little less USDC than the price arrives. Default 150, what the
   * sandbox keeps: set it to your providers' fee and no higher. The callback says what arrived, not
   * how: USDC sent straight to the order's wallet owes no provider fee, so whoever pays that way may
   * pay the price less this allowance and still be marked paid (README).
   */
  providerFeeAllowanceBps?: number;
}

export interface Order {
  id: string;
  lines: { name: string; quantity: number; cents: bigint }[];
  totalCents: bigint;
  email: string;
  ipnToken: string;
  status: 'awaiting payment' | 'paid' | 'underpaid' | 'late';
  /** What reached the shop for this order: the sum of its callbacks' `value_forwarded_coin`, USDC. */
  received?: string;
  /**
   * The largest order total a callback has said (USDC base units): the order's latest word. A retry
   * of an older callback, arriving after a newer one, carries a smaller total and changes nothing.
   */
  orderTotal?: bigint;
}

/** What one verified callback says of its order. */
type Verdict =
  | { kind: 'refused'; reason: string }
  /** The gateway's word on the whole order: its state, as of the total it names. */
  | { kind: 'order'; state: CallbackOrderState; total: bigint }
  /** This deposit alone, for a callback without order figures: it covers the price, or it does not. */
  | { kind: 'deposit'; covers: boolean }
  /** Signed, ours, for this order, but the gateway expected less than the price: never shipped. */
  | { kind: 'below_price' };

const CATALOG = [
  { id: 'sencha', name: 'Sencha, 100 g', cents: 1250n },
  { id: 'assam', name: 'Assam, 250 g', cents: 1890n },
  { id: 'pot', name: 'Cast-iron teapot', cents: 3900n },
];

export interface Shop {
  server: Server;
  orders: Map<string, Order>;
}

export function createShop(options: ShopOptions): Shop {
  const gateway = new GatewayClient({ baseUrl: options.baseUrl, paymentUrl: options.paymentUrl });
  const orders = new Map<string, Order>();
  const deliveries = new Set<string>();

  async function checkout(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const form = new URLSearchParams(await body(request));
    const lines = CATALOG.map((item) => ({ ...item, quantity: Number.parseInt(form.get(item.id) ?? '0', 10) || 0 })).filter(
      (line) => line.quantity > 0 && line.quantity <= 20,
    );
    const email = form.get('email') ?? '';
    if (lines.length === 0 || !email.includes('@'))
      return page(response, 400, 'Your cart', '<p>Choose at least one item and give your e-mail.</p>');
    const id = `T${Date.now().toString(36).toUpperCase()}${orders.size}`;
    const totalCents = lines.reduce((sum, line) => sum + line.cents * BigInt(line.quantity), 0n);
    // One wallet per order: its callback names the order, and only this shop's payout address can have it.
    const wallet = await gateway.createWallet({
      payoutAddress: options.payoutAddress,
      callbackUrl: `${options.shopUrl}/payment/callback?order_id=${id}`,
    });
    orders.set(id, { id, lines, totalCents, email, ipnToken: wallet.ipnToken, status: 'awaiting payment' });
    const link = gateway.hostedPaymentLink({
      addressIn: wallet.addressIn,
      amount: dollars(totalCents),
      email,
      currency: 'USD',
      domain: 'Leaf & Kettle',
    });
    response.writeHead(303, { location: link }).end();
  }

  async function callback(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    const order = orders.get(url.searchParams.get('order_id') ?? '');
    if (order === undefined) return void response.writeHead(404).end('unknown order');
    const verdict = judge(order, request);
    // A failed check never fetches the keys again: a rotation's new key is pinned deliberately (README).
    if (verdict.kind === 'refused') return void response.writeHead(401).end(verdict.reason);
    const deliveryId = String(request.headers[CALLBACK_DELIVERY_ID_HEADER]);
    if (!deliveries.has(deliveryId)) {
      deliveries.add(deliveryId);
      record(order, verdict, url.searchParams.get('value_forwarded_coin') ?? '0');
    }
    response.writeHead(200).end('*ok*');
  }

  function judge(order: Order, request: IncomingMessage): Verdict {
    const signed = {
      url: `${options.shopUrl}${request.url}`, // the path and query exactly as received
      header: request.headers[CALLBACK_SIGNATURE_HEADER],
      deliveryId: request.headers[CALLBACK_DELIVERY_ID_HEADER],
      publicKeys: options.callbackKeys,
      payoutAddress: options.payoutAddress,
      ipnToken: order.ipnToken,
    };
    const providerFeeBps = options.providerFeeAllowanceBps ?? 150;
    // The order's own word first: it says when two transfers make the price whole. The gateway
    // judges it against the customer's payment attempt, whose amount the customer's browser
    // carried, so its expectation must be the price less the on-ramp's fee at least.
    const whole = verifyCallbackOrder({ ...signed, minimumExpected: usdcDue(order.totalCents, providerFeeBps) });
    if (whole.ok) return { kind: 'order', state: whole.order.state, total: whole.order.totalBaseUnits };
    if (whole.reason === 'expectation_below_minimum') return { kind: 'below_price' };
    if (whole.reason !== 'no_order_figures') return { kind: 'refused', reason: whole.reason };
    // No order figures (an older gateway, or an order paid without a payment attempt): this deposit
    // alone must cover the price less the platform fee and the on-ramp's.
    const deposit = verifyCallbackSignature({
      ...signed,
      expectedAmount: usdcDue(order.totalCents, (options.platformFeeBps ?? 100) + providerFeeBps),
    });
    if (deposit.ok) return { kind: 'deposit', covers: true };
    // Signed, ours, for this order, but short of the price: recorded for the shop owner, not shipped.
    if (deposit.reason === 'amount_below_expected') return { kind: 'deposit', covers: false };
    return { kind: 'refused', reason: deposit.reason };
  }

  function orderPage(response: ServerResponse, id: string): void {
    const order = orders.get(id);
    if (order === undefined) {
      page(response, 404, 'Order not found', '<p>No such order.</p>');
      return;
    }
    const lines = order.lines.map(
      (line) => `<li>${line.quantity} × ${escapeHtml(line.name)} <span>${dollars(line.cents * BigInt(line.quantity))} USD</span></li>`,
    );
    const state = {
      paid: `Paid: ${escapeHtml(order.received ?? '')} USDC received. We are packing your tea.`,
      underpaid: 'Payment received, but short of the price: we will contact you.',
      late: "Payment received after the order's time ran out: we will contact you.",
      'awaiting payment': 'Awaiting payment.',
    }[order.status];
    page(
      response,
      200,
      `Order ${order.id}`,
      `<ul class="lines">${lines.join('')}</ul><p class="total">Total ${dollars(order.totalCents)} USD</p><p id="order-status" ` +
        `data-status="${order.status}">${state}</p>`,
    );
  }

  function cartPage(response: ServerResponse): void {
    const rows = CATALOG.map(
      (item) =>
        `<li><label for="${item.id}">${escapeHtml(item.name)} <span>${dollars(item.cents)} USD</span></label>` +
        `<input id="${item.id}" name="${item.id}" type="number" min="0" max="20" value="0" inputmode="numeric"></li>`,
    );
    page(
      response,
      200,
      'Leaf & Kettle',
      `<form method="post" action="/checkout"><ul class="lines">${rows.join('')}</ul>` +
        '<label for="email">E-mail for the receipt</label><input id="email" name="email" type="email" autocomplete="email" required>' +
        '<button type="submit">Pay by card</button></form><p class="note">You pay on the gateway\'s secure page; we receive USDC.</p>',
    );
  }

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', options.shopUrl);
    if (request.method === 'POST' && url.pathname === '/checkout') await checkout(request, response);
    else if (url.pathname === '/payment/callback') await callback(request, response, url);
    else if (url.pathname.startsWith('/orders/')) orderPage(response, url.pathname.slice('/orders/'.length));
    else if (url.pathname === '/') cartPage(response);
    else page(response, 404, 'Not found', '<p>Nothing here.</p>');
  }

  const server = createServer((request, response) => {
    route(request, response).catch((error: unknown) => {
      const reason = error instanceof GatewayRequestError ? `${error.code}: ${error.message}` : 'the shop failed';
      if (!response.headersSent) page(response, 502, 'Payment unavailable', `<p>${escapeHtml(reason)}</p>`);
    });
  });
  return { server, orders };
}

/**
 * A verified callback, once per delivery: what reached the shop adds up, and the status moves to
 * what the order's latest word says (the callback with the largest total; one without order
 * figures, on its deposit alone). A paid order stays paid: it may be packed already.
 */
function record(order: Order, verdict: Exclude<Verdict, { kind: 'refused' }>, forwarded: string): void {
  order.received = formatUsdc(usdcUnits(order.received ?? '0') + usdcUnits(forwarded));
  if (order.status === 'paid') return;
  if (verdict.kind === 'order') {
    if (order.orderTotal !== undefined && verdict.total <= order.orderTotal) return;
    order.orderTotal = verdict.total;
    const statusOf: Record<CallbackOrderState, Order['status']> = {
      paid: 'paid',
      overpaid: 'paid',
      underpaid: 'underpaid',
      late: 'late',
      awaiting: order.status,
    };
    order.status = statusOf[verdict.state];
  } else if (verdict.kind === 'deposit') {
    order.status = verdict.covers ? 'paid' : 'underpaid';
  } else {
    order.status = 'underpaid';
  }
}

/** What must reach the shop for an order: its price in USDC (6 decimals) less the fees allowed, rounded down. */
export function usdcDue(totalCents: bigint, feesBps: number): string {
  const units = (totalCents * 10_000n * BigInt(10_000 - feesBps)) / 10_000n;
  return `${units / 1_000_000n}.${(units % 1_000_000n).toString().padStart(6, '0')}`;
}

/** A USDC amount of a verified callback (at most 6 decimals) in base units. */
function usdcUnits(amount: string): bigint {
  const [whole = '0', fraction = ''] = amount.split('.');
  return BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, '0'));
}

/** Base units as the gateway writes USDC: trailing zeros trimmed ("62.4096", "18"). */
function formatUsdc(units: bigint): string {
  const fraction = (units % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '');
  return fraction === '' ? `${units / 1_000_000n}` : `${units / 1_000_000n}.${fraction}`;
}

function dollars(cents: bigint): string {
  return `${cents / 100n}.${(cents % 100n).toString().padStart(2, '0')}`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

function body(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      text += chunk;
      if (text.length > 10_000) request.destroy(new Error('form too large'));
    });
    request.on('end', () => resolve(text));
    request.on('error', reject);
  });
}

function page(response: ServerResponse, status: number, title: string, content: string): void {
  response
    .writeHead(status, {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': "default-src 'self'; style-src 'unsafe-inline'",
    })
    .end(
      `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width, ` +
        `initial-scale=1"><title>${escapeHtml(title)}</title>` +
        `<style>${STYLE}</style><header><a href="/">Leaf &amp; ` +
        `Kettle</a></header><main><h1>${escapeHtml(title)}</h1>${content}</main></html>`,
    );
}

const STYLE = `
body{margin:0;font:16px/1.5 system-ui,sans-serif;color:#1d2a22;background:#f4f1ea}
header{padding:14px 24px;background:#1f4d3a}header a{color:#fff;font-weight:600;text-decoration:none;font-size:1.1em}
main{max-width:520px;margin:32px auto;padding:24px;background:#fff;border-radius:12px;box-shadow:0 1px 4px #0002}
ul.lines{list-style:none;padding:0}
ul.lines li{display:flex;justify-content:space-between;align-items:center;gap:12px;padding:10px 0;border-bottom:1px solid #eee}
label span,li span{color:#555;margin-left:8px}input{font:inherit;padding:8px;border:1px solid #bbb;border-radius:6px}
input[type=number]{width:64px}input[type=email]{width:100%;box-sizing:border-box;margin:6px 0 16px}
button{font:inherit;font-weight:600;width:100%;padding:12px;border:0;border-radius:8px;background:#1f4d3a;color:#fff;cursor:pointer}
.note{color:#666;font-size:.9em}.total{font-weight:600}#order-status[data-status=paid]{color:#1f6b3a;font-weight:600}`;
