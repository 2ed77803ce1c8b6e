import {
  DECLINE_KINDS,
  DECLINE_NEXT_TRY,
  DEFAULT_CHECKOUT_RANKING_MIN_ATTEMPTS,
  parseFiatAmount,
  parseRate,
  providerOptions,
  rankSecondChance,
  type DeclineKind,
  type ProviderTerms,
} from '../src';
import { choiceProvider, PAGE } from './support/choice-providers';

const rates = new Map([['EUR', parseRate('0.8')]] as const);
const wallet = { offered: [{ method: 'card' }, { method: 'apple_pay' }], source: PAGE } as const;
const transfer = { offered: [{ method: 'card' }, { method: 'bank_transfer', currencies: ['EUR'] }], source: PAGE } as const;
const cardOnly = { offered: [{ method: 'card' }], source: PAGE } as const;
const euros = (text: string) => ({ amount: text, currency: 'EUR', source: PAGE }) as const;

function next(kind: DeclineKind, offered: readonly ProviderTerms[], order = '100.00', currency: 'USD' | 'EUR' = 'USD', country?: string) {
  const options = providerOptions(parseFiatAmount(order), currency, rates, offered);
  const ranking = rankSecondChance(options, 'failed', kind, {
    minAttempts: DEFAULT_CHECKOUT_RANKING_MIN_ATTEMPTS,
    measured: new Map(),
    rates,
    ...(country ? { customerCountry: country } : {}),
  });
  return [...ranking.recommended, ...ranking.more].map((row) => `${row.option.provider.id}:${row.fit}`);
}

describe('DECLINE_NEXT_TRY', () => {
  it('has a rule and a customer sentence for every decline kind', () => {
    for (const kind of DECLINE_KINDS) {
      expect(DECLINE_NEXT_TRY[kind].message.key).toBe(`decline.${kind}`);
      expect(DECLINE_NEXT_TRY[kind].message.text).toMatch(/^[A-Z].+\.$/);
    }
  });
});

describe('rankSecondChance', () => {
  it('leaves out the provider that declined', () => {
    expect(next('other', [choiceProvider('failed'), choiceProvider('a')])).toEqual(['a:neutral']);
  });

  it('card_refused: providers offering a wallet or a bank transfer (for this currency) first', () => {
    const offered = [
      choiceProvider('failed'),
      choiceProvider('card'),
      choiceProvider('sepa', { methods: transfer }),
      choiceProvider('apple', { methods: wallet }),
    ];
    expect(
      next(
        'card_refused',
        offered.map((p) => (p.id === 'card' ? { ...p, methods: cardOnly } : p)),
        '100.00',
        'USD',
      ),
    ).toEqual(['apple:preferred', 'card:neutral', 'sepa:neutral']);
    expect(
      next(
        'card_refused',
        offered.map((p) => (p.id === 'card' ? { ...p, methods: cardOnly } : p)),
        '100.00',
        'EUR',
      ),
    ).toEqual(['sepa:preferred', 'apple:preferred', 'card:neutral']);
  });

  it('identity_failed: providers with lighter checks at this amount first, at and around their threshold', () => {
    const offered = [choiceProvider('plain'), choiceProvider('light', { lightChecksUpTo: euros('500') })];
    expect(next('identity_failed', offered, '500.00', 'EUR')).toEqual(['light:preferred', 'plain:neutral']);
    expect(next('identity_failed', offered, '500.01', 'EUR')).toEqual(['plain:neutral', 'light:neutral']);
    // A USD order is compared in USD: 500 EUR at 0.8 EUR per USD is 625 USD.
    expect(next('identity_failed', offered, '625.00', 'USD')).toEqual(['light:preferred', 'plain:neutral']);
    expect(next('identity_failed', offered, '625.01', 'USD')).toEqual(['plain:neutral', 'light:neutral']);
  });

  it('over_limit: providers whose maximum allows the amount first, undocumented next, the others marked', () => {
    const offered = [
      choiceProvider('small', { maximum: { amount: '100', currency: 'USD', source: PAGE } }),
      choiceProvider('silent'),
      choiceProvider('large', { maximum: { amount: '5000', currency: 'USD', source: PAGE } }),
    ];
    expect(next('over_limit', offered, '100.00')).toEqual(['small:preferred', 'large:preferred', 'silent:neutral']);
    expect(next('over_limit', offered, '100.01')).toEqual(['large:preferred', 'silent:neutral', 'small:marked']);
  });

  it("country_unserved: the providers serving the customer's country first, the others marked", () => {
    const offered = [
      choiceProvider('us', { countries: { only: ['US'], source: PAGE } }),
      choiceProvider('unknown'),
      choiceProvider('eu', { countries: { only: ['DE', 'FR'], source: PAGE } }),
    ];
    expect(next('country_unserved', offered, '100.00', 'USD', 'DE')).toEqual(['eu:preferred', 'unknown:neutral', 'us:marked']);
    // Without the customer's country the rule cannot tell: the normal order.
    expect(next('country_unserved', offered)).toEqual(['us:neutral', 'unknown:neutral', 'eu:neutral']);
  });

  it.each(['abandoned', 'other'] as const)('%s: the normal ranking', (kind) => {
    const offered = [choiceProvider('b', { methods: cardOnly }), choiceProvider('a', { methods: wallet, lightChecksUpTo: euros('1000') })];
    expect(next(kind, offered)).toEqual(['b:neutral', 'a:neutral']);
  });
});
