import { randomBytes } from 'node:crypto';
import { findProvider } from '@gateway/domain';
import { createSandboxAdapter, verifySandboxLink } from '../src/sandbox-adapter';
import { createProviderRegistry } from '../src/provider-registry';

const secret = randomBytes(32);
const request = {
  provider: findProvider('moonpay'),
  paymentId: '2b0e8a52-6a8e-4c7e-9f57-5d8d2f7f0b11',
  walletAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
  amount: '49.99',
  currency: 'EUR' as const,
  email: 'jane+x@shop.io',
};

describe('sandbox adapter', () => {
  const adapter = createSandboxAdapter('moonpay', { baseUrl: 'http://127.0.0.1:3300/', signingSecret: secret });

  it('builds a signed checkout link carrying the order', () => {
    const url = new URL(adapter.buildCheckoutUrl(request));
    expect(url.origin + url.pathname).toBe('http://127.0.0.1:3300/checkout');
    expect(url.searchParams.get('address')).toBe(request.walletAddress);
    expect(url.searchParams.get('email')).toBe('jane+x@shop.io');
    expect(url.searchParams.get('amount')).toBe('49.99');
    expect(verifySandboxLink(url.searchParams, secret)).toBe(true);
  });

  it('refuses a link whose amount, wallet or expiry was changed, or signed with another key', () => {
    const url = new URL(adapter.buildCheckoutUrl(request));
    for (const [name, value] of [['amount', '0.01'], ['address', '0x0000000000000000000000000000000000000001'], ['expires', '9999999999']]) {
      const tampered = new URLSearchParams(url.searchParams);
      tampered.set(name as string, value as string);
      expect(verifySandboxLink(tampered, secret)).toBe(false);
    }
    expect(verifySandboxLink(url.searchParams, randomBytes(32))).toBe(false);
  });

  it('refuses an expired link', () => {
    const url = new URL(adapter.buildCheckoutUrl(request));
    expect(verifySandboxLink(url.searchParams, secret, Math.floor(Date.now() / 1000) + 2 * 3600)).toBe(false);
  });

  it('has an adapter for every provider of the catalogue', () => {
    const registry = createProviderRegistry({ sandbox: { baseUrl: 'http://x', signingSecret: secret } });
    expect(registry.size).toBe(20);
    expect(registry.get('upi')?.capabilities.checkout).toBe('redirect');
  });
});
