import type { CurrencyCode } from '../../src/currencies';
import type { ProviderCatalogue, ProviderTerms } from '../../src/provider-terms';

const terms = (id: string, displayName: string, currency: 'any' | CurrencyCode, minimum: string): ProviderTerms => ({
  id,
  displayName,
  currency,
  minimum,
  minimumCurrency: currency === 'any' ? 'USD' : currency,
  fees: { minBps: 300, maxBps: 500 },
});

/** The specification's twenty providers with their currency rules and minimums, as terms for the order rules' tests. */
export const SAMPLE_PROVIDERS: readonly ProviderTerms[] = [
  terms('wert', 'Wert', 'USD', '1'),
  terms('stripe', 'Stripe', 'USD', '2'),
  terms('robinhood', 'Robinhood', 'USD', '5'),
  terms('transak', 'Transak', 'any', '15'),
  terms('moonpay', 'MoonPay', 'any', '20'),
  terms('rampnetwork', 'Ramp Network', 'USD', '4'),
  terms('guardarian', 'Guardarian', 'any', '20'),
  terms('particle', 'Particle', 'any', '30'),
  // Coinbase honours its preset fiat amount in these four currencies only.
  { ...terms('coinbase', 'Coinbase', 'any', '2'), currencies: ['USD', 'CAD', 'GBP', 'EUR'] },
  terms('sardine', 'Sardine', 'any', '30'),
  terms('banxa', 'Banxa', 'any', '20'),
  terms('utorg', 'UTORG', 'any', '50'),
  terms('simplex', 'Simplex', 'any', '50'),
  terms('alchemypay', 'Alchemy Pay', 'any', '5'),
  terms('mercuryo', 'Mercuryo', 'any', '30'),
  terms('topper', 'Topper', 'any', '10'),
  terms('unlimit', 'Unlimit', 'any', '10'),
  terms('transfi', 'TransFi', 'USD', '70'),
  terms('interac', 'Interac', 'CAD', '100'),
  terms('upi', 'UPI', 'INR', '100'),
];

/** A catalogue offering `offered`, knowing PayPal as an id it does not offer. */
export function sampleCatalogue(offered: readonly ProviderTerms[] = SAMPLE_PROVIDERS): ProviderCatalogue {
  const paypal = terms('paypal', 'PayPal', 'any', '1');
  return {
    offered,
    describe: (id) => [...SAMPLE_PROVIDERS, paypal].find((provider) => provider.id === id),
    notOfferedReason: (id) =>
      id === 'paypal'
        ? 'not integrated'
        : SAMPLE_PROVIDERS.some((p) => p.id === id) && !offered.some((p) => p.id === id)
          ? 'not configured'
          : undefined,
  };
}
