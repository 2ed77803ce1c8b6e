import type { Static, TObject } from '@sinclair/typebox';
import {
  ProviderWebhookError,
  type AdapterContext,
  type CheckoutOrder,
  type ProviderAdapter,
  type ProviderMode,
  type ProviderModule,
  type ProviderPaymentStatus,
  type WebhookHeaders,
} from '../../src/provider-contract';
import type { ProviderHttpClient } from '../../src/support/provider-http-client';
import type { TokenStore } from '../../src/support/shared-token-store';
import { redirectCheckout } from './checkout-target';

/**
 * The contract test suite every adapter runs (`describeAdapterContract` in its own test file).
 * What it needs from the adapter's test is written from the provider's documentation, never
 * from the adapter's code: how to read a checkout URL, and how the provider signs a webhook.
 */

/** A fixed clock for the contract: 2026-11-25T12:00:00Z. */
export const CONTRACT_NOW_MS = Date.UTC(2026, 10, 25, 12, 0, 0);

export function sampleOrder(currency: CheckoutOrder['currency']): CheckoutOrder {
  const paymentId = '6f1c2b9e-4d3a-4e8b-9a7c-2f5d8e1b3c40';
  return {
    paymentId,
    walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
    amount: '149.99',
    currency,
    email: 'jane+test@shop.io',
    returnUrl: `https://pay.example.org/payment/${paymentId}`,
    customerIp: '203.0.113.7',
  };
}

/** An HTTP client that fails the test if used; adapters that call out get a local fake instead. */
export const NO_HTTP: ProviderHttpClient = {
  request: async (request) => {
    throw new Error(`unexpected outgoing call to ${request.url}`);
  },
  close: async () => undefined,
};

/** A token store that fails the test if used; adapters with tokens get one on a real Redis or a map instead. */
export const NO_TOKENS: TokenStore = {
  current: async (name) => {
    throw new Error(`unexpected use of the token store (${name})`);
  },
  known: async () => [],
  discard: async () => undefined,
};

export function contractContext(id: string, mode: ProviderMode, overrides: Partial<AdapterContext> = {}): AdapterContext {
  return {
    mode,
    webhookUrl: `https://pay.example.org/webhooks/${id}`,
    http: NO_HTTP,
    tokens: NO_TOKENS,
    now: () => CONTRACT_NOW_MS,
    ...overrides,
  };
}

/** What a checkout URL carries, read the way the provider's documentation describes its parameters. */
export interface CheckoutReading {
  wallet: string;
  amount: string;
  currency: string;
  /** Our payment id, wherever the provider carries it (its order-id parameter, or the return URL); '' where it carries none. */
  reference: string;
}

export interface SignedWebhook {
  rawBody: Buffer;
  headers: WebhookHeaders;
}

export interface WebhookSample {
  paymentId: string;
  walletAddress: string;
  /** The gateway status the sample should map to. */
  status: Extract<ProviderPaymentStatus, 'paid' | 'failed' | 'declined'>;
}

export interface AdapterContractFixture<S extends TObject> {
  module: ProviderModule<S>;
  /** Settings per mode the test covers (at least one), e.g. MoonPay's pk_live_/pk_test_ keys. */
  settings: Partial<Record<ProviderMode, Static<S>>>;
  /** Context overrides, e.g. a local fake for a provider called at checkout. */
  context?: (mode: ProviderMode) => Partial<AdapterContext>;
  readCheckout(url: URL): CheckoutReading | Promise<CheckoutReading>;
  /**
   * A webhook as the provider sends it, signed as its documentation says (independently of the
   * adapter), at `nowMs`. Omitted for providers that sign no webhooks (descriptor.webhook null).
   */
  signWebhook?(sample: WebhookSample, nowMs: number): SignedWebhook | Promise<SignedWebhook>;
  /**
   * False for a provider that takes no order reference and no return URL (Particle): the link
   * then must not carry our payment id either, and the reading's `reference` is not compared.
   */
  carriesReference?: boolean;
  /** False where the signature travels in the body (Transak's JWT): the body without headers is still signed. */
  signatureInHeaders?: boolean;
  /** False for schemes without a signed timestamp (the stale-replay test does not apply). */
  webhookHasTimestamp?: boolean;
}

export function describeAdapterContract<S extends TObject>(fixture: AdapterContractFixture<S>): void {
  const { descriptor } = fixture.module;
  const modes = Object.keys(fixture.settings) as ProviderMode[];
  const currency = descriptor.currency === 'any' ? 'EUR' : descriptor.currency;
  const build = (mode: ProviderMode): Promise<ProviderAdapter> =>
    Promise.resolve(fixture.module.create(fixture.settings[mode]!, contractContext(descriptor.id, mode, fixture.context?.(mode))));

  describe(`${descriptor.id}: the adapter contract`, () => {
    it('has a valid descriptor', () => {
      expect(descriptor.id).toMatch(/^[a-z0-9]{2,32}$/);
      expect(descriptor.displayName.length).toBeGreaterThan(1);
      expect(descriptor.currency === 'any' || /^[A-Z]{3}$/.test(descriptor.currency)).toBe(true);
      expect(descriptor.minimum).toMatch(/^\d+(\.\d{1,2})?$/);
      expect(descriptor.minimumCurrency).toMatch(/^[A-Z]{3}$/);
      expect(['signed-url', 'url', 'session']).toContain(descriptor.flow);
      expect(['native', 'bridged']).toContain(descriptor.delivers);
      expect(new URL(descriptor.docs).protocol).toBe('https:');
      expect(new URL(descriptor.hosts.live).protocol).toBe('https:');
      expect(new URL(descriptor.hosts.test).protocol).toBe('https:');
      expect(descriptor.settings.type).toBe('object');
      for (const [name, schema] of Object.entries(descriptor.settings.properties)) {
        expect(name).toMatch(/^[A-Z][A-Z0-9_]*$/);
        expect(name).not.toBe('MODE');
        expect((schema as { description?: string }).description).toBeTruthy();
      }
      expect(descriptor.webhook === null).toBe(fixture.signWebhook === undefined);
      expect(modes.length).toBeGreaterThan(0);
    });

    it.each(modes)('%s settings select that mode', (mode) => {
      const requested = Object.keys(fixture.settings).length > 1 || mode === 'test' ? mode : undefined;
      expect(fixture.module.modeOf(fixture.settings[mode]!, requested)).toBe(mode);
    });

    it.each(modes)(
      "%s mode: the checkout is https on the mode's host and carries the wallet, amount, currency and our reference",
      async (mode) => {
        const adapter = await build(mode);
        expect(adapter.mode).toBe(mode);
        const order = sampleOrder(currency);
        const created = await adapter.createCheckout(order, { idempotencyKey: order.paymentId, signal: new AbortController().signal });
        const url = new URL(redirectCheckout(created).url);
        if (created.expiresAt !== undefined) expect(created.expiresAt).toBeGreaterThan(CONTRACT_NOW_MS);
        const host = new URL(descriptor.hosts[mode]).hostname;
        expect(url.protocol).toBe('https:');
        expect(url.hostname === host || url.hostname.endsWith(`.${host}`)).toBe(true);
        const reading = await fixture.readCheckout(url);
        expect(reading.wallet.toLowerCase()).toBe(order.walletAddress.toLowerCase());
        expect(Number(reading.amount).toFixed(2)).toBe(order.amount);
        expect(reading.currency.toUpperCase()).toBe(order.currency);
        if (fixture.carriesReference === false) expect(url.toString()).not.toContain(order.paymentId);
        else expect(reading.reference).toBe(order.paymentId);
      },
    );

    if (!fixture.signWebhook) return;
    const sign = fixture.signWebhook.bind(fixture);
    const mode = modes[0]!;
    const sample = (status: WebhookSample['status']): WebhookSample => ({
      paymentId: sampleOrder(currency).paymentId,
      walletAddress: sampleOrder(currency).walletAddress,
      status,
    });

    it.each(['paid', 'failed'] as const)('a signed "%s" webhook round-trips to that status and names the payment', async (status) => {
      const adapter = await build(mode);
      const webhook = await sign(sample(status), CONTRACT_NOW_MS);
      const outcome = await adapter.verifyWebhook(webhook.rawBody, webhook.headers);
      expect(outcome.kind).toBe('event');
      if (outcome.kind !== 'event') return;
      const mapped = outcome.event.status === 'declined' ? 'failed' : outcome.event.status;
      expect(mapped).toBe(status);
      expect(outcome.event.rawStatus.length).toBeGreaterThan(0);
      const { match } = outcome.event;
      expect(
        match.paymentId === sample(status).paymentId ||
          match.walletAddress?.toLowerCase() === sample(status).walletAddress.toLowerCase() ||
          match.providerReference !== undefined,
      ).toBe(true);
      expect(outcome.acknowledgement.statusCode).toBeGreaterThanOrEqual(200);
      expect(outcome.acknowledgement.statusCode).toBeLessThan(300);
    });

    it('a tampered body is refused', async () => {
      const adapter = await build(mode);
      const webhook = await sign(sample('paid'), CONTRACT_NOW_MS);
      // A value changed (its first digit), as an attacker would change an amount or an id.
      const text = webhook.rawBody.toString('utf8');
      const at = text.search(/\d/);
      expect(at).toBeGreaterThanOrEqual(0);
      const tampered = Buffer.from(`${text.slice(0, at)}${(Number(text[at]) + 1) % 10}${text.slice(at + 1)}`, 'utf8');
      const altered = Buffer.from(webhook.rawBody);
      const middle = Math.floor(altered.length / 2);
      altered.writeUInt8(altered.readUInt8(middle) ^ 0x01, middle);
      await expect(adapter.verifyWebhook(tampered, webhook.headers)).rejects.toBeInstanceOf(ProviderWebhookError);
      await expect(adapter.verifyWebhook(altered, webhook.headers)).rejects.toBeInstanceOf(ProviderWebhookError);
    });

    if (fixture.signatureInHeaders !== false)
      it('a webhook without its signature is refused', async () => {
        const adapter = await build(mode);
        const webhook = await sign(sample('paid'), CONTRACT_NOW_MS);
        await expect(adapter.verifyWebhook(webhook.rawBody, {})).rejects.toBeInstanceOf(ProviderWebhookError);
      });

    if (fixture.webhookHasTimestamp !== false) {
      it('a webhook signed an hour ago (a replay) is refused', async () => {
        const adapter = await build(mode);
        const webhook = await sign(sample('paid'), CONTRACT_NOW_MS - 3_600_000);
        await expect(adapter.verifyWebhook(webhook.rawBody, webhook.headers)).rejects.toBeInstanceOf(ProviderWebhookError);
      });
    }
  });
}
