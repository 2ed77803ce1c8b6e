import {
  DEFAULT_CHECKOUT_RANKING_MIN_ATTEMPTS,
  parseFiatAmount,
  parseRankingMinAttempts,
  parseRate,
  providerOptions,
  quotedCostBps,
  rankCheckoutOptions,
  type MeasuredCheckouts,
  type ProviderTerms,
  type RankingContext,
} from '../src';
import { chargeWithin } from '../src/checkout-ranking';
import { choiceProvider, PAGE } from './support/choice-providers';

const amount = parseFiatAmount('50.00');
const ids = (rows: readonly { option: { provider: { id: string } } }[]) => rows.map((row) => row.option.provider.id);
const context = (measured: Record<string, MeasuredCheckouts> = {}, extra: Partial<RankingContext> = {}): RankingContext => ({
  minAttempts: DEFAULT_CHECKOUT_RANKING_MIN_ATTEMPTS,
  measured: new Map(Object.entries(measured)),
  ...extra,
});
const rank = (offered: readonly ProviderTerms[], ctx: RankingContext, currency: 'USD' | 'EUR' = 'USD') => {
  const ranking = rankCheckoutOptions(providerOptions(amount, currency, new Map([['EUR', parseRate('0.9')]]), offered), ctx);
  return [...ranking.recommended, ...ranking.more];
};
const ABC = [choiceProvider('a'), choiceProvider('b'), choiceProvider('c')];

describe('parseRankingMinAttempts', () => {
  it('defaults to 100 and takes whole numbers from 10 to 1,000,000', () => {
    expect(DEFAULT_CHECKOUT_RANKING_MIN_ATTEMPTS).toBe(100);
    expect(parseRankingMinAttempts('10')).toBe(10);
    expect(parseRankingMinAttempts('1000000')).toBe(1_000_000);
  });

  it.each(['9', '0', '1000001', '-5', '12.5', '1e3', '', ' 100', 'abc'])(
    'refuses %p with invalid_parameter naming the setting',
    (input) => {
      expect(() => parseRankingMinAttempts(input)).toThrow(
        expect.objectContaining({
          code: 'invalid_parameter',
          param: 'CHECKOUT_RANKING_MIN_ATTEMPTS',
          message: expect.stringMatching(/from 10 to 1000000/),
        }),
      );
    },
  );
});

describe('rankCheckoutOptions: the operator order and measured figures', () => {
  it('keeps the operator order while no provider has enough attempts, however good the few look', () => {
    const rows = rank(ABC, context({ c: { attempts: 99, reachedUsdc: 99, minutesToUsdc: 1 }, a: { attempts: 99, reachedUsdc: 0 } }));
    expect(ids(rows)).toEqual(['a', 'b', 'c']);
    expect(rows.every((row) => row.measured === undefined)).toBe(true);
  });

  it('lets providers with enough attempts trade places among the positions they hold, by conversion', () => {
    const measured = { a: { attempts: 100, reachedUsdc: 40 }, c: { attempts: 100, reachedUsdc: 60 } };
    const rows = rank(ABC, context(measured));
    expect(ids(rows)).toEqual(['c', 'b', 'a']);
    expect(rows[0]?.measured).toEqual({ attempts: 100, reachedUsdc: 60 });
  });

  it('counts a provider at exactly the setting and not one attempt below it', () => {
    const c = { attempts: 50, reachedUsdc: 50 };
    expect(ids(rank(ABC, context({ a: { attempts: 50, reachedUsdc: 1 }, c }, { minAttempts: 50 })))).toEqual(['c', 'b', 'a']);
    expect(
      ids(rank(ABC, context({ a: { attempts: 50, reachedUsdc: 1 }, c: { attempts: 49, reachedUsdc: 49 } }, { minAttempts: 50 }))),
    ).toEqual(['a', 'b', 'c']);
  });

  it('compares conversions exactly (2/3 beats 66/100) and breaks ties by measured time, then cost', () => {
    expect(ids(rank(ABC, context({ a: { attempts: 100, reachedUsdc: 66 }, c: { attempts: 150, reachedUsdc: 100 } })))).toEqual([
      'c',
      'b',
      'a',
    ]);
    const sameConversion = {
      a: { attempts: 100, reachedUsdc: 50, minutesToUsdc: 30 },
      c: { attempts: 200, reachedUsdc: 100, minutesToUsdc: 10 },
    };
    expect(ids(rank(ABC, context(sameConversion)))).toEqual(['c', 'b', 'a']);
    const noTime = { a: { attempts: 100, reachedUsdc: 50 }, c: { attempts: 100, reachedUsdc: 50, minutesToUsdc: 90 } };
    expect(ids(rank(ABC, context(noTime)))).toEqual(['c', 'b', 'a']);
    const tie = { a: { attempts: 100, reachedUsdc: 50, minutesToUsdc: 10 }, c: { attempts: 100, reachedUsdc: 50, minutesToUsdc: 10 } };
    expect(ids(rank(ABC, context(tie)))).toEqual(['a', 'b', 'c']);
    expect(
      ids(
        rank(
          ABC,
          context(tie, {
            quotedCostBps: new Map([
              ['a', 450],
              ['c', 449],
            ]),
          }),
        ),
      ),
    ).toEqual(['c', 'b', 'a']);
  });

  it('says whether a time is measured, documented or assumed', () => {
    const offered = [
      choiceProvider('a', { timeToUsdc: { minutes: 20, source: PAGE } }),
      choiceProvider('b', { timeToUsdc: { minutes: 30, source: PAGE, assumed: 'none published' } }),
      choiceProvider('c', { timeToUsdc: { minutes: 20, source: PAGE } }),
      choiceProvider('d'),
    ];
    const rows = rank(
      offered,
      context({ c: { attempts: 100, reachedUsdc: 1, minutesToUsdc: 7 }, a: { attempts: 5, reachedUsdc: 5, minutesToUsdc: 1 } }),
    );
    expect(rows.map((row) => row.timeToUsdc)).toEqual([
      { minutes: 20, basis: 'documented', source: PAGE },
      { minutes: 30, basis: 'assumed', source: PAGE },
      { minutes: 7, basis: 'measured' },
      undefined,
    ]);
  });

  it('costs a row from its quote when there is one, else from the middle of its documented fees', () => {
    const rows = rank(ABC, context({}, { quotedCostBps: new Map([['b', 120]]) }));
    expect(rows.map((row) => row.cost)).toEqual([
      { bps: 400, basis: 'documented_fees' },
      { bps: 120, basis: 'quote' },
      { bps: 400, basis: 'documented_fees' },
    ]);
  });
});

describe('rankCheckoutOptions: methods and countries', () => {
  const methods = {
    offered: [
      { method: 'card' },
      { method: 'apple_pay' },
      { method: 'bank_transfer', currencies: ['EUR'] },
      { method: 'bank_transfer', currencies: ['EUR', 'GBP'] },
    ],
    source: PAGE,
  } as const;

  it('lists the methods offered for the currency the provider will charge', () => {
    expect(rank([choiceProvider('a', { methods })], context(), 'EUR')[0]?.methods).toEqual(['card', 'apple_pay', 'bank_transfer']);
    expect(rank([choiceProvider('a', { methods })], context(), 'USD')[0]?.methods).toEqual(['card', 'apple_pay']);
    // A USD-only provider charges a EUR order in USD: its EUR-only methods do not apply.
    expect(rank([choiceProvider('a', { methods, currency: 'USD' })], context(), 'EUR')[0]?.methods).toEqual(['card', 'apple_pay']);
  });

  const served = [
    choiceProvider('us-only', { countries: { only: ['US'], source: PAGE } }),
    choiceProvider('unknown', { countries: { undocumented: 'no list found' } }),
    choiceProvider('not-de', { countries: { except: ['DE', 'RU'], source: PAGE } }),
    choiceProvider('silent'),
  ];

  it('puts the providers serving a known country first, unknown next, the others last and marked', () => {
    const rows = rank(served, context({}, { customerCountry: 'DE' }));
    expect(ids(rows)).toEqual(['unknown', 'silent', 'us-only', 'not-de']);
    expect(rows.map((row) => row.servesCountry)).toEqual(['unknown', 'unknown', 'no', 'no']);
    const us = rank(served, context({}, { customerCountry: 'US' }));
    expect(ids(us)).toEqual(['us-only', 'not-de', 'unknown', 'silent']);
  });

  it('keeps the order and says unknown when the country is not known', () => {
    const rows = rank(served, context());
    expect(ids(rows)).toEqual(['us-only', 'unknown', 'not-de', 'silent']);
    expect(new Set(rows.map((row) => row.servesCountry))).toEqual(new Set(['unknown']));
  });
});

describe('rankCheckoutOptions: recommended rows', () => {
  const many = (count: number, extra: Partial<ProviderTerms> = {}) =>
    Array.from({ length: count }, (_, i) => choiceProvider(`p${i}`, extra));
  const split = (offered: readonly ProviderTerms[], ctx = context()) => {
    const ranking = rankCheckoutOptions(providerOptions(amount, 'USD', new Map(), offered), ctx);
    return [ranking.recommended.length, ranking.more.length];
  };

  it('recommends up to five and puts the rest behind the disclosure', () => {
    expect(split(many(2))).toEqual([2, 0]);
    expect(split(many(5))).toEqual([5, 0]);
    expect(split(many(6))).toEqual([5, 1]);
    expect(split(many(17))).toEqual([5, 12]);
  });

  it('stops before the first provider not serving the country, but recommends at least three', () => {
    const ctx = context({}, { customerCountry: 'FR' });
    const serving = many(4, { countries: { except: [], source: PAGE } });
    const notServing = many(4, { countries: { only: ['US'], source: PAGE } }).map((p) => ({ ...p, id: `x${p.id}` }));
    expect(split([...serving, ...notServing], ctx)).toEqual([4, 4]);
    expect(split([serving[0] as ProviderTerms, ...notServing], ctx)).toEqual([3, 2]);
    expect(
      split(
        [...serving, serving[0] as ProviderTerms, ...notServing].map((p, i) => ({ ...p, id: `q${i}` })),
        ctx,
      ),
    ).toEqual([5, 4]);
  });

  it('ranks only available options (an order below a minimum is not ranked)', () => {
    const offered = [choiceProvider('small'), choiceProvider('big', { minimum: '100' })];
    const ranking = rankCheckoutOptions(providerOptions(amount, 'USD', new Map(), offered), context());
    expect(ids(ranking.recommended)).toEqual(['small']);
  });
});

describe('quotedCostBps and chargeWithin', () => {
  it('costs a quote by what does not reach the shop, rounded up', () => {
    expect(quotedCostBps(10_000n, 96_000_000n)).toBe(400);
    expect(quotedCostBps(10_000n, 95_999_999n)).toBe(401);
    expect(quotedCostBps(10_000n, 100_000_000n)).toBe(0);
    expect(quotedCostBps(10_000n, 101_000_000n)).toBe(0);
    expect(() => quotedCostBps(0n, 1n)).toThrow();
  });

  it('compares a charge with a limit in its currency, or in USD with the rates, and cannot tell without one', () => {
    const limit = { amount: '500', currency: 'EUR', source: PAGE } as const;
    const charge = (text: string, currency: 'EUR' | 'USD') => ({ amount: parseFiatAmount(text), currency });
    expect(chargeWithin(limit, charge('500.00', 'EUR'), undefined)).toBe(true);
    expect(chargeWithin(limit, charge('500.01', 'EUR'), undefined)).toBe(false);
    const rates = new Map([['EUR', parseRate('0.8')]] as const);
    expect(chargeWithin(limit, charge('625.00', 'USD'), rates)).toBe(true);
    expect(chargeWithin(limit, charge('625.01', 'USD'), rates)).toBe(false);
    expect(chargeWithin(limit, charge('1.00', 'USD'), undefined)).toBeUndefined();
  });
});
