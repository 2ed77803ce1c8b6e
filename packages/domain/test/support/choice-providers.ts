import type { ProviderTerms } from '../../src';

/** A provider for the choice rules' tests: any currency, 1 USD minimum, 3–5 % fees, unless `extra` says otherwise. */
export const choiceProvider = (id: string, extra: Partial<ProviderTerms> = {}): ProviderTerms => ({
  id,
  displayName: id.toUpperCase(),
  currency: 'any',
  minimum: '1',
  minimumCurrency: 'USD',
  fees: { minBps: 300, maxBps: 500 },
  ...extra,
});

export const PAGE = 'https://provider.example/docs';
