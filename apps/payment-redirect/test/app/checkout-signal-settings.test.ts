import { ConfigError } from '@gateway/config';
import { DEFAULT_CIRCUIT_SETTINGS } from '@gateway/domain';
import { loadPaymentRedirectConfig } from '../../src/config';
import { paymentRedirectFixture } from '../support/payment-redirect-fixture';

// The checkout signals' settings, read with packages/domain's parse functions: the defaults, each
// refusal naming its setting (all of them at once, as every other setting's), and the country header.

const fixture = paymentRedirectFixture('signal_settings');

const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadPaymentRedirectConfig(fixture.env(env));
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
};

it('has the documented defaults: no country header', () => {
  expect(fixture.config().checkoutSignals).toEqual({
    circuit: DEFAULT_CIRCUIT_SETTINGS,
    rankingMinAttempts: 100,
    rankingWindowDays: 30,
    countryHeader: undefined,
    subdivisionHeader: undefined,
  });
});

it('reads each one, the header in lower case as Node hands it', () => {
  const signals = fixture.config({
    PROVIDER_CIRCUIT_WINDOW_SECONDS: '60',
    PROVIDER_CIRCUIT_MIN_CALLS: '5',
    PROVIDER_CIRCUIT_FAILURE_PERCENT: '80',
    PROVIDER_CIRCUIT_COOL_OFF_SECONDS: '30',
    CHECKOUT_RANKING_MIN_ATTEMPTS: '250',
    CHECKOUT_RANKING_WINDOW_DAYS: '7',
    CUSTOMER_COUNTRY_HEADER: 'CF-IPCountry',
    CUSTOMER_SUBDIVISION_HEADER: 'CF-Region-Code',
  }).checkoutSignals;
  expect(signals).toEqual({
    circuit: { windowSeconds: 60, minCalls: 5, failurePercent: 80, coolOffSeconds: 30 },
    rankingMinAttempts: 250,
    rankingWindowDays: 7,
    countryHeader: 'cf-ipcountry',
    subdivisionHeader: 'cf-region-code',
  });
});

it('refuses every bad one at once, each naming its setting', () => {
  const problems = problemsOf({
    PROVIDER_CIRCUIT_FAILURE_PERCENT: '0',
    CHECKOUT_RANKING_MIN_ATTEMPTS: '5',
    CHECKOUT_RANKING_WINDOW_DAYS: '400',
  });
  expect(problems).toEqual([
    expect.stringMatching(
      /^PROVIDER_CIRCUIT_FAILURE_PERCENT: PROVIDER_CIRCUIT_FAILURE_PERCENT must be a whole number of percent from 1 to 100/,
    ),
    expect.stringMatching(/^CHECKOUT_RANKING_MIN_ATTEMPTS: .* from 10 to 1000000/),
    expect.stringMatching(/^CHECKOUT_RANKING_WINDOW_DAYS: .* from 1 to 365/),
  ]);
  expect(problemsOf({ PROVIDER_CIRCUIT_COOL_OFF_SECONDS: 'soon' })).toEqual([expect.stringContaining('PROVIDER_CIRCUIT_COOL_OFF_SECONDS')]);
});

it('refuses Accept-Language, and a header name that is not one, as the country header', () => {
  expect(problemsOf({ CUSTOMER_COUNTRY_HEADER: 'Accept-Language' })).toEqual([
    expect.stringMatching(/^CUSTOMER_COUNTRY_HEADER: Accept-Language names the customer's languages, not their country/),
  ]);
  expect(problemsOf({ CUSTOMER_COUNTRY_HEADER: 'CF IPCountry' })).toEqual([expect.stringContaining('CUSTOMER_COUNTRY_HEADER')]);
});

it('refuses a subdivision header without a country header, and Accept-Language as one', () => {
  expect(problemsOf({ CUSTOMER_SUBDIVISION_HEADER: 'cf-region-code' })).toEqual([
    expect.stringMatching(/^CUSTOMER_SUBDIVISION_HEADER: a subdivision says nothing without its country; set CUSTOMER_COUNTRY_HEADER/),
  ]);
  expect(problemsOf({ CUSTOMER_COUNTRY_HEADER: 'cf-ipcountry', CUSTOMER_SUBDIVISION_HEADER: 'Accept-Language' })).toEqual([
    expect.stringMatching(/^CUSTOMER_SUBDIVISION_HEADER: Accept-Language names the customer's languages/),
  ]);
});
