import { defineProvider, modeFromSetting, ProviderWebhookError, type ProviderModule } from '../src/provider-contract';
import { providerAdapter } from '../src/support/provider-adapter';
import { refuseStale } from '../src/support/signing';
import { paymentEvent, paymentMatch, text } from '../src/support/webhook-event';
import { webhookJson, webhookJsonObject } from '../src/support/webhook-json';
import { Type } from '@sinclair/typebox';

const refusal = (read: () => unknown): unknown => {
  try {
    read();
  } catch (error) {
    return error;
  }
  return undefined;
};

describe('webhookJson and webhookJsonObject', () => {
  it('read the body as UTF-8 JSON', () => {
    expect(webhookJson(Buffer.from('{"a":"é"}'), 'X webhook body')).toEqual({ a: 'é' });
    expect(webhookJson(Buffer.from('[1]'), 'X webhook body')).toEqual([1]);
    expect(webhookJson(Buffer.from('null'), 'X webhook body')).toBeNull();
    expect(webhookJsonObject(Buffer.from(' {"a":1} '), 'X webhook body')).toEqual({ a: 1 });
  });

  it('refuse a body that is not JSON as not the provider’s, naming it', () => {
    for (const read of [
      () => webhookJson(Buffer.from('{'), 'Mercuryo callback body'),
      () => webhookJsonObject(Buffer.from(''), 'Mercuryo callback body'),
    ]) {
      const error = refusal(read);
      expect(error).toBeInstanceOf(ProviderWebhookError);
      expect((error as Error).message).toBe('Mercuryo callback body is not JSON');
    }
  });

  it.each(['[]', 'null', '"text"', '3', 'true'])('webhookJsonObject refuses %s as not a JSON object', (body) => {
    const error = refusal(() => webhookJsonObject(Buffer.from(body), 'Stripe webhook body'));
    expect(error).toBeInstanceOf(ProviderWebhookError);
    expect((error as Error).message).toBe('Stripe webhook body is not a JSON object');
  });
});

describe('text', () => {
  it('is a non-empty string, else undefined', () => {
    expect(text('abc')).toBe('abc');
    expect(text(' ')).toBe(' ');
    for (const value of ['', undefined, null, 0, 12, true, {}, ['a']]) expect(text(value)).toBeUndefined();
  });
});

describe('paymentMatch', () => {
  it('keeps the identifiers given, empty ones left out', () => {
    expect(paymentMatch({ paymentId: 'p', providerReference: 'r', walletAddress: '0xw' })).toEqual({
      paymentId: 'p',
      providerReference: 'r',
      walletAddress: '0xw',
    });
    expect(paymentMatch({ paymentId: '', providerReference: undefined, walletAddress: '0xw' })).toEqual({ walletAddress: '0xw' });
    expect(paymentMatch({})).toEqual({});
    expect(Object.keys(paymentMatch({ providerReference: 'r' }))).toEqual(['providerReference']);
  });

  it('is the match of paymentEvent', () => {
    const { event } = paymentEvent({ status: 'paid', rawStatus: 'done', paymentId: 'p', walletAddress: '' });
    expect(event.match).toEqual(paymentMatch({ paymentId: 'p' }));
  });
});

describe('defineProvider', () => {
  const settings = Type.Object({ KEY: Type.String() });
  const descriptor = {
    id: 'example',
    displayName: 'Example',
    currency: 'any',
    minimum: '1',
    minimumCurrency: 'USD',
    fees: { minBps: 300, maxBps: 500, source: 'https://docs.example/fees' },
    methods: { offered: [{ method: 'card' }], source: 'https://docs.example' },
    timeToUsdc: { minutes: 10, source: 'https://docs.example' },
    countries: { undocumented: 'a test provider' },
    flow: 'url',
    webhook: null,
    delivers: 'native',
    settings,
    hosts: { live: 'https://live.example', test: 'https://test.example' },
    docs: 'https://docs.example',
  } as const;
  const create: ProviderModule<typeof settings>['create'] = () => {
    throw new Error('not built here');
  };

  it('without modeOf, takes the mode PROVIDER_<ID>_MODE asks for, live when unset', () => {
    const module = defineProvider({ descriptor, create });
    expect(module.modeOf).toBe(modeFromSetting);
    expect(module.modeOf({ KEY: 'k' }, undefined)).toBe('live');
    expect(module.modeOf({ KEY: 'k' }, 'test')).toBe('test');
    expect(module.descriptor).toBe(descriptor);
    expect(module.create).toBe(create);
  });

  it("providerAdapter gives an adapter the descriptor and the context's mode", async () => {
    const createCheckout = async () => ({ kind: 'redirect' as const, url: 'https://live.example/x' });
    const verifyWebhook = async () => {
      throw new ProviderWebhookError('no');
    };
    const adapter = providerAdapter(descriptor, { mode: 'test' }, { createCheckout, verifyWebhook });
    expect(adapter).toEqual({ descriptor, mode: 'test', createCheckout, verifyWebhook });
    expect(adapter.descriptor).toBe(descriptor);
  });

  it('keeps a modeOf of its own', () => {
    const modeOf = () => 'test' as const;
    expect(defineProvider({ descriptor, modeOf, create }).modeOf).toBe(modeOf);
  });
});

describe('refuseStale', () => {
  const now = 1_700_000_000_000;

  it('lets a signed time within the tolerance either way through', () => {
    expect(() => refuseStale('timestamp', now - 300_000, 'milliseconds', now, 300)).not.toThrow();
    expect(() => refuseStale('timestamp', String((now + 300_000) / 1000), 'seconds', now, 300)).not.toThrow();
  });

  it.each([
    [now - 300_001, 'milliseconds'],
    [now + 300_001, 'milliseconds'],
    [(now - 301_000) / 1000, 'seconds'],
    ['not a time', 'seconds'],
  ] as const)('refuses %s (%s) as a replay, naming the time', (timestamp, unit) => {
    const error = refusal(() => refuseStale('Authorization nonce', timestamp, unit, now, 300));
    expect(error).toBeInstanceOf(ProviderWebhookError);
    expect((error as Error).message).toBe('Authorization nonce is more than 300 s from now (a replay, or a clock far off)');
  });
});
