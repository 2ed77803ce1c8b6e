import { randomBytes } from 'node:crypto';
import { DECLINE_KINDS } from '@gateway/domain';
import {
  createSandboxAdapter,
  knownProviderTerms,
  ProviderWebhookError,
  SANDBOX_PROVIDER_FEE_BPS,
  SANDBOX_WEBHOOK_SIGNATURE_HEADER,
  signSandboxWebhook,
  verifySandboxLink,
  type CheckoutOrder,
} from '../src';
import { describeHostileWebhooks, SIGNATURE_ALTERATIONS, signatureInHeader, tamperedSignature } from './support/adapter-contract';
import { redirectCheckout } from './support/checkout-target';

const secret = randomBytes(32);
const request: CheckoutOrder = {
  paymentId: '2b0e8a52-6a8e-4c7e-9f57-5d8d2f7f0b11',
  walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
  amount: '49.99',
  currency: 'EUR',
  email: 'jane+x@shop.io',
  returnUrl: 'https://pay.example.org/payment/2b0e8a52-6a8e-4c7e-9f57-5d8d2f7f0b11',
  customerIp: '127.0.0.1',
};
const options = { idempotencyKey: request.paymentId, signal: new AbortController().signal };

describe('sandbox adapter', () => {
  const adapter = createSandboxAdapter(knownProviderTerms('moonpay')!, { baseUrl: 'http://127.0.0.1:3300/', signingSecret: secret });

  const link = async () => new URL(redirectCheckout(await adapter.createCheckout(request, options)).url);

  it("documents the sandbox's own fee, not the fees of the provider it stands in for", () => {
    expect(knownProviderTerms('moonpay')!.fees).not.toMatchObject({ minBps: SANDBOX_PROVIDER_FEE_BPS });
    expect(adapter.descriptor.fees).toMatchObject({ minBps: SANDBOX_PROVIDER_FEE_BPS, maxBps: SANDBOX_PROVIDER_FEE_BPS });
    expect(adapter.descriptor.fees.source).toContain('PROVIDER_FEE_BPS');
  });

  it('says what the provider it stands in for offers (methods, time to USDC, countries), so the page reads as it would live', () => {
    const moonpay = knownProviderTerms('moonpay')!;
    expect(adapter.descriptor.methods).toEqual(moonpay.methods);
    expect(adapter.descriptor.timeToUsdc).toEqual(moonpay.timeToUsdc);
    expect(adapter.descriptor.countries).toEqual(moonpay.countries);
    expect(adapter.descriptor.methods?.offered.map((offered) => offered.method)).toContain('apple_pay');
  });

  it('says the checkout expires with its link, an hour after it was made', async () => {
    const before = Date.now();
    const created = redirectCheckout(await adapter.createCheckout(request, options));
    const expires = Number(new URL(created.url).searchParams.get('expires')) * 1000;
    expect(created.expiresAt).toBe(expires);
    expect(expires - before).toBeGreaterThan(3_590_000);
    expect(expires - before).toBeLessThanOrEqual(3_600_000);
  });

  it('builds a signed checkout link carrying the order and the return page', async () => {
    const url = await link();
    expect(url.origin + url.pathname).toBe('http://127.0.0.1:3300/checkout');
    expect(url.searchParams.get('address')).toBe(request.walletAddress);
    expect(url.searchParams.get('email')).toBe('jane+x@shop.io');
    expect(url.searchParams.get('amount')).toBe('49.99');
    const verdict = verifySandboxLink(url.searchParams, secret);
    expect(verdict).toEqual({ ok: true, fields: expect.objectContaining({ payment: request.paymentId, return_url: request.returnUrl }) });
  });

  it('refuses a link whose amount, wallet, return page or expiry was changed, or signed with another key', async () => {
    const url = await link();
    const changes = [
      ['amount', '0.01'],
      ['address', '0x0000000000000000000000000000000000000001'],
      ['expires', '9999999999'],
      ['return_url', 'https://evil.example/'],
    ];
    for (const [name, value] of changes) {
      const tampered = new URLSearchParams(url.searchParams);
      tampered.set(name as string, value as string);
      expect(verifySandboxLink(tampered, secret)).toEqual({ ok: false, reason: 'bad_signature' });
    }
    expect(verifySandboxLink(url.searchParams, randomBytes(32))).toEqual({ ok: false, reason: 'bad_signature' });
    url.searchParams.delete('sig');
    expect(verifySandboxLink(url.searchParams, secret)).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('refuses an expired link', async () => {
    const url = await link();
    expect(verifySandboxLink(url.searchParams, secret, Math.floor(Date.now() / 1000) + 2 * 3600)).toEqual({ ok: false, reason: 'expired' });
  });

  it.each(SIGNATURE_ALTERATIONS)('refuses a webhook whose signature is %s', async (alteration) => {
    const rawBody = Buffer.from(JSON.stringify({ payment_id: request.paymentId, status: 'paid', order_id: 'sbx_2' }));
    const webhook = { rawBody, headers: { [SANDBOX_WEBHOOK_SIGNATURE_HEADER]: signSandboxWebhook(rawBody, secret) } };
    const slot = signatureInHeader(SANDBOX_WEBHOOK_SIGNATURE_HEADER, 'hex', /(?<=,v1=).*$/);
    await expect(adapter.verifyWebhook(webhook.rawBody, webhook.headers)).resolves.toMatchObject({ kind: 'event' });
    const forged = slot.write(webhook, tamperedSignature(slot.read(webhook), slot.encoding, alteration));
    await expect(adapter.verifyWebhook(forged.rawBody, forged.headers)).rejects.toThrow(ProviderWebhookError);
  });

  it('reads a signed webhook and refuses an altered, unsigned or stale one', async () => {
    const body = Buffer.from(
      JSON.stringify({ payment_id: request.paymentId, status: 'declined', order_id: 'sbx_1', reason: 'Card declined' }),
    );
    const headers = { [SANDBOX_WEBHOOK_SIGNATURE_HEADER]: signSandboxWebhook(body, secret) };
    expect(await adapter.verifyWebhook(body, headers)).toMatchObject({
      kind: 'event',
      event: {
        match: { paymentId: request.paymentId },
        status: 'declined',
        rawStatus: 'declined',
        providerReference: 'sbx_1',
        reason: 'Card declined',
      },
      acknowledgement: { statusCode: 200 },
    });
    const altered = Buffer.from(body.toString().replace('declined', 'paid'));
    await expect(adapter.verifyWebhook(altered, headers)).rejects.toThrow(ProviderWebhookError);
    await expect(adapter.verifyWebhook(body, {})).rejects.toThrow(ProviderWebhookError);
    const stale = { [SANDBOX_WEBHOOK_SIGNATURE_HEADER]: signSandboxWebhook(body, secret, Math.floor(Date.now() / 1000) - 3600) };
    await expect(adapter.verifyWebhook(body, stale)).rejects.toThrow(ProviderWebhookError);
    const unknownStatus = Buffer.from(JSON.stringify({ payment_id: 'x', status: 'refunded', order_id: 'y' }));
    await expect(
      adapter.verifyWebhook(unknownStatus, { [SANDBOX_WEBHOOK_SIGNATURE_HEADER]: signSandboxWebhook(unknownStatus, secret) }),
    ).rejects.toThrow(/known status/);
  });

  it('passes on the decline kind a refusal reports: a kind it does not document, or none, is other; none without a failure', async () => {
    const signed = async (fields: object) => {
      const body = Buffer.from(JSON.stringify({ payment_id: request.paymentId, order_id: 'sbx_3', ...fields }));
      const read = await adapter.verifyWebhook(body, { [SANDBOX_WEBHOOK_SIGNATURE_HEADER]: signSandboxWebhook(body, secret) });
      return read.kind === 'event' ? read.event.declineKind : 'ignored';
    };
    for (const kind of DECLINE_KINDS) expect(await signed({ status: 'declined', decline_kind: kind })).toBe(kind);
    expect(await signed({ status: 'failed', decline_kind: 'abandoned' })).toBe('abandoned');
    expect(await signed({ status: 'declined', decline_kind: 'card_declined' })).toBe('other');
    expect(await signed({ status: 'failed' })).toBe('other');
    expect(await signed({ status: 'paid', decline_kind: 'card_refused' })).toBeUndefined();
  });

  it('passes on the transaction a paid webhook reports, lower-cased, and drops one that is not a transaction hash', async () => {
    const signed = (fields: object) => {
      const body = Buffer.from(JSON.stringify({ payment_id: request.paymentId, status: 'paid', order_id: 'sbx_2', ...fields }));
      return adapter.verifyWebhook(body, { [SANDBOX_WEBHOOK_SIGNATURE_HEADER]: signSandboxWebhook(body, secret) });
    };
    const tx = `0x${'AB'.repeat(32)}`;
    expect(await signed({ tx_hash: tx })).toMatchObject({ kind: 'event', event: { status: 'paid', txHash: tx.toLowerCase() } });
    const malformed = await signed({ tx_hash: '0x1234' });
    expect(malformed.kind === 'event' && malformed.event.txHash).toBe(undefined);
  });
});

describe('sandbox adapter: hostile webhooks, correctly signed', () => {
  const adapter = createSandboxAdapter(knownProviderTerms('moonpay')!, { baseUrl: 'http://127.0.0.1:3300/', signingSecret: secret });
  describeHostileWebhooks(
    async () => adapter,
    { payment_id: request.paymentId, status: 'declined', order_id: 'sbx_1', reason: 'Card declined' },
    (payload) => {
      const rawBody = Buffer.from(JSON.stringify(payload));
      return { rawBody, headers: { [SANDBOX_WEBHOOK_SIGNATURE_HEADER]: signSandboxWebhook(rawBody, secret) } };
    },
  );
});
