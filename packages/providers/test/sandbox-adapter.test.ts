import { randomBytes } from 'node:crypto';
import { findProvider } from '@gateway/domain';
import {
  createProviderRegistry,
  createSandboxAdapter,
  ProviderWebhookError,
  SANDBOX_WEBHOOK_SIGNATURE_HEADER,
  signSandboxWebhook,
  verifySandboxLink,
} from '../src';

const secret = randomBytes(32);
const request = {
  provider: findProvider('moonpay'),
  paymentId: '2b0e8a52-6a8e-4c7e-9f57-5d8d2f7f0b11',
  walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
  amount: '49.99',
  currency: 'EUR' as const,
  email: 'jane+x@shop.io',
  returnUrl: 'https://pay.example.org/payment/2b0e8a52-6a8e-4c7e-9f57-5d8d2f7f0b11',
};

describe('sandbox adapter', () => {
  const adapter = createSandboxAdapter('moonpay', { baseUrl: 'http://127.0.0.1:3300/', signingSecret: secret });

  it('builds a signed checkout link carrying the order and the return page', () => {
    const url = new URL(adapter.buildCheckoutUrl(request));
    expect(url.origin + url.pathname).toBe('http://127.0.0.1:3300/checkout');
    expect(url.searchParams.get('address')).toBe(request.walletAddress);
    expect(url.searchParams.get('email')).toBe('jane+x@shop.io');
    expect(url.searchParams.get('amount')).toBe('49.99');
    const verdict = verifySandboxLink(url.searchParams, secret);
    expect(verdict).toEqual({ ok: true, fields: expect.objectContaining({ payment: request.paymentId, return_url: request.returnUrl }) });
  });

  it('refuses a link whose amount, wallet, return page or expiry was changed, or signed with another key', () => {
    const url = new URL(adapter.buildCheckoutUrl(request));
    const changes = [['amount', '0.01'], ['address', '0x0000000000000000000000000000000000000001'], ['expires', '9999999999'], ['return_url', 'https://evil.example/']];
    for (const [name, value] of changes) {
      const tampered = new URLSearchParams(url.searchParams);
      tampered.set(name as string, value as string);
      expect(verifySandboxLink(tampered, secret)).toEqual({ ok: false, reason: 'bad_signature' });
    }
    expect(verifySandboxLink(url.searchParams, randomBytes(32))).toEqual({ ok: false, reason: 'bad_signature' });
    url.searchParams.delete('sig');
    expect(verifySandboxLink(url.searchParams, secret)).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('refuses an expired link', () => {
    const url = new URL(adapter.buildCheckoutUrl(request));
    expect(verifySandboxLink(url.searchParams, secret, Math.floor(Date.now() / 1000) + 2 * 3600)).toEqual({ ok: false, reason: 'expired' });
  });

  it('reads a signed webhook and refuses an altered, unsigned or stale one', () => {
    const body = Buffer.from(JSON.stringify({ payment_id: request.paymentId, status: 'declined', order_id: 'sbx_1', reason: 'Card declined' }));
    const headers = { [SANDBOX_WEBHOOK_SIGNATURE_HEADER]: signSandboxWebhook(body, secret) };
    expect(adapter.parseWebhook({ headers, rawBody: body })).toEqual({ paymentId: request.paymentId, status: 'declined', reference: 'sbx_1', reason: 'Card declined' });
    const altered = Buffer.from(body.toString().replace('declined', 'paid'));
    expect(() => adapter.parseWebhook({ headers, rawBody: altered })).toThrow(ProviderWebhookError);
    expect(() => adapter.parseWebhook({ headers: {}, rawBody: body })).toThrow(ProviderWebhookError);
    const stale = { [SANDBOX_WEBHOOK_SIGNATURE_HEADER]: signSandboxWebhook(body, secret, Math.floor(Date.now() / 1000) - 3600) };
    expect(() => adapter.parseWebhook({ headers: stale, rawBody: body })).toThrow(ProviderWebhookError);
    const unknownStatus = Buffer.from(JSON.stringify({ payment_id: 'x', status: 'refunded', order_id: 'y' }));
    expect(() => adapter.parseWebhook({ headers: { [SANDBOX_WEBHOOK_SIGNATURE_HEADER]: signSandboxWebhook(unknownStatus, secret) }, rawBody: unknownStatus })).toThrow(
      /known status/,
    );
  });

  it('has an adapter for every provider of the catalogue, and refuses the sandbox in production', () => {
    const sandbox = { baseUrl: 'http://x', signingSecret: secret };
    const registry = createProviderRegistry({ sandbox, allowSandbox: true });
    expect(registry.size).toBe(20);
    expect(registry.get('upi')?.capabilities).toEqual({ checkout: 'redirect', live: false, webhooks: true });
    expect(() => createProviderRegistry({ sandbox, allowSandbox: false })).toThrow(/sandbox \(simulated checkout\) would serve wert, stripe/);
  });
});
