// The hosted checkout's pure parts: link parsing, branding, the page model, the CSP rewrite.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  attemptExpectation,
  createSealingKeyRing,
  GatewayError,
  parseCheckoutLink,
  parseRate,
  sealAddressIn,
  usdcForFullValue,
  type RateTable,
} from '@gateway/domain';
import type { RateReader } from '@gateway/rates';
import { knownProviderTerms, SPECIFICATION_ORDER } from '@gateway/providers';
import { HostedCheckoutService, type RawQuery } from '../../src/services/hosted-checkout-service';
import type { CheckoutPorts, CheckoutQuotes, QuoteOrder, RowQuote } from '../../src/services/checkout-rows';
import {
  ACCENT_MIN_CONTRAST,
  brandingStyle,
  CARD_COLOURS,
  contrastRatio,
  legibleAccent,
  parseBranding,
  readableInk,
} from '../../src/routes/hosted-checkout/branding';
import { allowImageOrigin } from '../../src/routes/hosted-checkout/content-security-policy';
import { checkoutPageView } from '../../src/routes/hosted-checkout/view-model';

// The specification's twenty providers, with the terms their descriptors declare.
// The specification's providers this gateway can serve (Robinhood is not offered: it has no terms here).
const SPEC_PROVIDERS = SPECIFICATION_ORDER.flatMap((id) => knownProviderTerms(id) ?? []);
const keys = createSealingKeyRing([{ id: 't1', key: randomBytes(32) }]);
const temporary = `0x${'ab'.repeat(20)}` as const;
const addressIn = sealAddressIn(temporary, keys);
const rates: RateTable = new Map([
  ['EUR', parseRate('0.92')],
  ['CAD', parseRate('1.37')],
  ['INR', parseRate('83.1')],
]);
const fixedRates: RateReader = { current: async () => ({ rates, asOf: new Date(), source: 'fixed' }) };
const query = { address: addressIn, amount: '49.99', email: 'jane@shop.io', currency: 'EUR' };

describe('parseCheckoutLink', () => {
  it('accepts a valid link and keeps the address_in as given', () => {
    const parsed = parseCheckoutLink(query, keys);
    expect(parsed).toEqual({
      link: {
        addressIn,
        temporaryAddress: temporary,
        amount: { text: '49.99', minorUnits: 4999n },
        currency: 'EUR',
        email: 'jane@shop.io',
      },
    });
  });

  it('names every bad parameter at once, with how to fix it', () => {
    const parsed = parseCheckoutLink(
      { address: '0x52908400098527886E0F7030069857D2E4169EE7', amount: '1e3', currency: 'XYZ', email: ['a@b.io', 'c@d.io'] },
      keys,
    );
    expect('problems' in parsed && parsed.problems).toEqual([
      { param: 'address', message: expect.stringMatching(/address_in returned by Create Wallet.*plain 0x wallet address is not accepted/) },
      { param: 'amount', message: expect.stringMatching(/plain positive decimal.*\(got "1e3"\)/) },
      { param: 'currency', message: expect.stringMatching(/XYZ is not supported; use one of USD, EUR/) },
      { param: 'email', message: 'email is given more than once; send it once' },
    ]);
  });

  it('reports missing parameters and a token that does not open', () => {
    const parsed = parseCheckoutLink({ address: `${addressIn.slice(0, -2)}AA` }, keys);
    expect('problems' in parsed && parsed.problems.map((problem) => problem.param)).toEqual(['address', 'amount', 'currency', 'email']);
    expect('problems' in parsed && parsed.problems[0]?.message).toMatch(/not an address_in issued by this gateway/);
    expect('problems' in parsed && parsed.problems[1]?.message).toBe('amount is missing: add amount=<the order total>, e.g. amount=49.99');
  });
});

describe('parseBranding', () => {
  it('keeps valid branding, normalised', () => {
    const branding = parseBranding({
      domain: '  My   Shop\u0007 ',
      logo: 'https://cdn.shop.io/logo.png?v=2',
      background: '#FAFAFA',
      button: '#0a7',
      theme: 'Dark',
    });
    expect(branding).toEqual({
      shopName: 'My Shop',
      logoUrl: 'https://cdn.shop.io/logo.png?v=2',
      logoOrigin: 'https://cdn.shop.io',
      background: '#fafafa',
      button: '#00aa77',
      theme: 'dark',
      ignored: [],
    });
  });

  it('ignores anything that is not certainly safe', () => {
    const branding = parseBranding({
      logo: 'javascript:alert(1)',
      background: 'url(https://evil.io/x.png)',
      button: 'red',
      theme: 'neon',
      domain: ['a', 'b'],
    });
    expect(branding).toEqual({ theme: 'light', ignored: ['domain', 'logo', 'theme', 'background', 'button'] });
    for (const logo of [
      'http://cdn.shop.io/logo.png',
      'https://user:pw@cdn.shop.io/l.png',
      'https://[::1]/l.png',
      'https://localhost/l.png',
      '//cdn.shop.io/l.png',
      'data:image/png;base64,AAAA',
    ]) {
      expect(parseBranding({ logo }).logoUrl).toBeUndefined();
    }
    for (const colour of ['#12', '#12345', '#1234567', 'fff', '#ggg', '#fff;color:red', 'rgb(0,0,0)']) {
      expect(parseBranding({ button: colour }).button).toBeUndefined();
    }
  });

  it('caps the shop name and keeps markup as text (escaped by the view)', () => {
    expect(parseBranding({ domain: '<script>alert(1)</script>' }).shopName).toBe('<script>alert(1)</script>');
    const long = parseBranding({ domain: 'x'.repeat(500) }).shopName ?? '';
    expect([...long]).toHaveLength(60);
    expect(long.endsWith('…')).toBe(true);
  });

  it('turns colours into custom properties with readable text on them', () => {
    expect(brandingStyle(parseBranding({ background: '#000', button: '#0b6e4f' }))).toBe(
      '--bg:#000000;--page-ink:#ffffff;--accent:#0b6e4f;--accent-ink:#ffffff',
    );
    expect(brandingStyle(parseBranding({}))).toBeUndefined();
    expect(readableInk('#1f5eff')).toBe('#ffffff');
    expect(readableInk('#ffffff')).toBe('#111827');
  });
});

describe("a theme colour (the WooCommerce plugin's)", () => {
  it('becomes the accent, in any of the forms a colour picker gives, unless button is given', () => {
    for (const theme of ['#0B6E4F', '0b6e4f', ' #0b6e4f '])
      expect(parseBranding({ theme })).toEqual({ theme: 'light', button: '#0b6e4f', ignored: [] });
    expect(parseBranding({ theme: '#0a7' }).button).toBe('#00aa77');
    expect(parseBranding({ theme: '#0b6e4f', button: '#1f5eff' }).button).toBe('#1f5eff');
    for (const theme of ['0a7', '#0b6e4', 'green', '#0b6e4f;color:red'])
      expect(parseBranding({ theme })).toEqual({ theme: 'light', ignored: ['theme'] });
  });

  it('is made legible on the card: mixed toward black on the light theme, toward white on the dark one, hue kept', () => {
    const yellow = '#ffd400';
    expect(contrastRatio(yellow, CARD_COLOURS.light)).toBeLessThan(ACCENT_MIN_CONTRAST);
    const onLight = legibleAccent(yellow, 'light');
    expect(contrastRatio(onLight, CARD_COLOURS.light)).toBeGreaterThanOrEqual(ACCENT_MIN_CONTRAST);
    // Still a yellow: darker, its channels in the same proportion (blue stays none).
    expect(onLight).toMatch(/^#[0-9a-f]{4}00$/);
    const [red, green] = [onLight.slice(1, 3), onLight.slice(3, 5)].map((hex) => Number.parseInt(hex, 16)) as [number, number];
    expect(green / red).toBeCloseTo(0xd4 / 0xff, 1);
    const navy = '#1a237e';
    expect(legibleAccent(navy, 'light')).toBe(navy);
    const onDark = legibleAccent(navy, 'dark');
    expect(onDark).not.toBe(navy);
    expect(contrastRatio(onDark, CARD_COLOURS.dark)).toBeGreaterThanOrEqual(ACCENT_MIN_CONTRAST);
    // White on white becomes the lightest grey that reads on it, not black.
    expect(legibleAccent('#ffffff', 'light')).toBe('#737373');
    expect(brandingStyle(parseBranding({ theme: yellow }))).toBe(`--accent:${onLight};--accent-ink:${readableInk(onLight)}`);
  });

  it('agrees with the card colours pages.css paints', () => {
    const css = readFileSync(join(__dirname, '../../../../packages/pages/assets/pages.css'), 'utf8');
    expect(css).toMatch(new RegExp(`:root\\s*\\{[^}]*--card: ${CARD_COLOURS.light};`));
    expect(css).toMatch(new RegExp(`\\.theme-dark \\{[^}]*--card: ${CARD_COLOURS.dark};`));
  });
});

describe('allowImageOrigin', () => {
  const policy =
    "default-src 'self';frame-ancestors 'none';script-src 'self';style-src 'self' 'unsafe-inline';img-src 'self' data:;form-action " +
    "'self';base-uri 'none';object-src 'none'";
  it('adds one origin to img-src and changes nothing else', () => {
    expect(allowImageOrigin(policy, 'https://cdn.shop.io')).toBe(
      policy.replace("img-src 'self' data:", "img-src 'self' data: https://cdn.shop.io"),
    );
  });
  it('adds img-src when the policy has none', () => {
    expect(allowImageOrigin("default-src 'self'", 'https://cdn.shop.io')).toBe(
      "default-src 'self';img-src 'self' data: https://cdn.shop.io",
    );
  });
});

describe('HostedCheckoutService', () => {
  const shopTerms = { platformFeeBps: 100, affiliateFeeBps: null, customerPaysFee: null };
  const service = (
    known: boolean,
    reader: RateReader = fixedRates,
    ports?: CheckoutPorts,
    {
      terms = shopTerms,
      providers = SPEC_PROVIDERS,
    }: {
      terms?: typeof shopTerms | { customerPaysFee: boolean; platformFeeBps: number; affiliateFeeBps: null };
      providers?: typeof SPEC_PROVIDERS;
    } = {},
  ) =>
    new HostedCheckoutService({
      keys,
      wallets: { orderTermsOf: async () => (known ? terms : undefined) },
      rates: reader,
      providers,
      ...(ports ? { ports } : {}),
    });
  // The page the route renders from the service's offer: the view model over the providers it gives.
  const page = async (checkout: HostedCheckoutService, query: RawQuery, headers: Record<string, string> = {}) => {
    const offer = await checkout.prepare(query, headers);
    if (offer.kind !== 'offer') throw new Error(`expected an offer, got ${offer.kind}`);
    const view = checkoutPageView(offer, parseBranding(query));
    return { offer, view, rows: [...view.recommended, ...view.more], ratesError: offer.ratesError };
  };

  it('lists the providers with links to Process Payment: 5 recommended, the rest behind the disclosure', async () => {
    const { view, rows } = await page(service(true), { ...query, domain: 'shop.io' });
    const wert = rows.find((provider) => provider.id === 'wert');
    expect(wert).toMatchObject({ amount: '54.34', currency: 'USD', orderAmount: '49.99 EUR' });
    const href = new URL(wert!.href, 'https://pay.example');
    expect(href.pathname).toBe('/process-payment.php');
    expect(Object.fromEntries(href.searchParams)).toEqual({
      address: addressIn,
      amount: '54.34',
      provider: 'wert',
      email: 'jane@shop.io',
      currency: 'USD',
    });
    expect(view.title).toBe('Pay 49.99 EUR · shop.io');
    // The operator's order: those charging EUR first, the USD-only ones (converted) last.
    expect(view.recommended.map((row) => row.id)).toEqual(['transak', 'moonpay', 'guardarian', 'particle', 'coinbase']);
    expect(view.more.slice(-3).map((row) => row.id)).toEqual(['wert', 'stripe', 'rampnetwork']);
    expect(rows).toHaveLength(16);
    expect(view.convertedNote).toMatch(/converted at the current exchange rate, rounded up to the cent/);
  });

  it('without a quote service: the estimate Process Payment records, from the documented fees', async () => {
    const { rows } = await page(service(true), query);
    const moonpay = rows.find((row) => row.id === 'moonpay')!;
    // What Process Payment would record for MoonPay and this order: its estimate, to the cent.
    const recorded = attemptExpectation({
      amount: { text: '49.99', minorUnits: 4999n },
      currency: 'EUR',
      rate: parseRate('0.92'),
      fees: knownProviderTerms('moonpay')!.fees,
      now: new Date(),
      windowHours: 24,
    });
    expect(recorded.basis).toBe('estimate');
    const cents = recorded.usdc / 10_000n;
    expect(moonpay).toMatchObject({
      amount: '49.99',
      currency: 'EUR',
      receives: `Fees included: the shop receives about ${cents / 100n}.${String(cents % 100n).padStart(2, '0')} USDC (estimated from its published fees)`,
      methods: 'Card, Apple Pay, Google Pay, PayPal, Bank transfer',
      time: 'USDC in about 20 minutes (per MoonPay)',
    });
    expect(moonpay.warning).toBeUndefined();
    expect(moonpay.amountNote).toBeUndefined();
    // An assumed time says so; bank transfer only where the provider documents it for the currency.
    expect(rows.find((row) => row.id === 'coinbase')).toMatchObject({
      methods: 'Card, Apple Pay, Google Pay',
      time: 'USDC in about 30 minutes (typical)',
    });
    expect(rows.find((row) => row.id === 'wert')?.receives).toMatch(/^Fees included: the shop receives about \d+\.\d\d USDC/);
  });

  it("with a quote service: each row's quote (fees included), asked with the wait; a failing one falls back to the estimate", async () => {
    const asked: Array<[QuoteOrder, number]> = [];
    const quotes: CheckoutPorts['quotes'] = {
      quote: async (order, { waitMs }) => {
        asked.push([order, waitMs]);
        if (order.provider === 'guardarian') throw new Error('quote API timed out');
        const total = (order.amount.minorUnits * 103n) / 100n;
        const quote: RowQuote = {
          provider: order.provider,
          basis: 'quote',
          usdc: 52_100_000n,
          total: `${total / 100n}.${String(total % 100n).padStart(2, '0')}`,
          currency: order.currency,
          quotedAt: new Date(),
        };
        return quote;
      },
    };
    const { offer, rows } = await page(service(true, fixedRates, { quotes, quoteWaitMs: 300 }), query);
    expect(asked).toHaveLength(16);
    expect(asked.every(([, waitMs]) => waitMs === 300)).toBe(true);
    expect(asked.find(([order]) => order.provider === 'wert')?.[0]).toMatchObject({ amount: { text: '54.34' }, currency: 'USD' });
    expect(rows.find((row) => row.id === 'moonpay')).toMatchObject({
      amount: '51.48',
      currency: 'EUR',
      amountNote: 'Fees included',
      receives: 'The shop receives 52.10 USDC',
    });
    // The link still carries the order's charge: the provider adds its fees on its own page.
    expect(new URL(rows.find((row) => row.id === 'moonpay')!.href, 'https://pay.example').searchParams.get('amount')).toBe('49.99');
    expect(rows.find((row) => row.id === 'guardarian')).toMatchObject({
      amount: '49.99',
      receives: expect.stringMatching(/^Fees included: the shop receives about /),
    });
    expect(rows.find((row) => row.id === 'guardarian')?.amountNote).toBeUndefined();
    expect(offer.prices.failures).toEqual([{ provider: 'guardarian', error: new Error('quote API timed out') }]);
  });

  it('fees on top (the wallet asks): a provider that sells a fixed USDC amount is priced for it, the others keep the fees inside', async () => {
    const fixed = { parameter: 'quoteCurrencyAmount', source: 'https://dev.moonpay.com/docs/ramps-sdk-buy-params' };
    const providers = SPEC_PROVIDERS.map((provider) => (provider.id === 'moonpay' ? { ...provider, fixedUsdc: fixed } : provider));
    const asked: QuoteOrder[] = [];
    const quotes: CheckoutQuotes = {
      async quote(order) {
        asked.push(order);
        if (!order.feesOnTop) throw new Error('no quote: the estimate stands');
        return {
          provider: order.provider,
          basis: 'quote',
          usdc: order.feesOnTop.usdc,
          total: '55.10',
          currency: order.currency,
          feesOnTop: { orderUsdc: order.feesOnTop.orderUsdc },
        };
      },
    };
    const terms = { platformFeeBps: 100, affiliateFeeBps: null, customerPaysFee: true };
    const { rows } = await page(service(true, fixedRates, { quotes }, { terms, providers }), query);
    const moonpayOrder = asked.find((order) => order.provider === 'moonpay')!;
    // The order's value in USDC, grossed up for the wallet's 1 %: what Process Payment will ask MoonPay for.
    expect(moonpayOrder.feesOnTop!.usdc).toBe(usdcForFullValue(moonpayOrder.feesOnTop!.orderUsdc, terms));
    const full = moonpayOrder.feesOnTop!.orderUsdc / 10_000n;
    expect(rows.find((row) => row.id === 'moonpay')).toMatchObject({
      amount: '55.10',
      amountNote: 'The order plus fees',
      receives: `Fees on top: the shop receives ${full / 100n}.${String(full % 100n).padStart(2, '0')} USDC`,
    });
    // Only providers that sell a fixed amount are asked for one.
    const sellers = new Set(providers.filter((provider) => provider.fixedUsdc).map((provider) => provider.id));
    expect(asked.filter((order) => order.feesOnTop).every((order) => sellers.has(order.provider))).toBe(true);
    expect(asked.filter((order) => !order.feesOnTop).every((order) => !sellers.has(order.provider))).toBe(true);
    expect(rows.find((row) => row.id === 'wert')?.receives).toMatch(/^Fees included: the shop receives about /);
  });

  it("fees on top without a quote: the provider's documented fees estimate what the customer pays, marked", async () => {
    const fixed = { parameter: 'cryptoAmount', source: 'https://docs.transak.com/customization/query-parameters' };
    const providers = SPEC_PROVIDERS.map((provider) => (provider.id === 'transak' ? { ...provider, fixedUsdc: fixed } : provider));
    const { rows } = await page(service(true, fixedRates, undefined, { terms: { ...shopTerms, customerPaysFee: true }, providers }), query);
    const transak = rows.find((row) => row.id === 'transak')!;
    expect(transak.amountNote).toBe('About: the order plus fees (estimated from its published fees)');
    expect(transak.receives).toMatch(/^Fees on top: the shop receives \d+\.\d\d USDC$/);
    expect(Number(transak.amount)).toBeGreaterThan(49.99);
  });

  it("the customer's country: providers serving it first, the others marked and last, never hidden", async () => {
    const ports: CheckoutPorts = {
      customerLocation: (headers) => (typeof headers['x-country'] === 'string' ? { country: headers['x-country'] } : undefined),
    };
    const { view, rows } = await page(service(true, fixedRates, ports), query, { 'x-country': 'CA' });
    // Banxa documents it does not serve Canada, Stripe serves the US only; Coinbase's list has Canada.
    expect(rows.slice(-2).map((row) => [row.id, row.warning])).toEqual([
      ['banxa', 'May not serve customers in Canada'],
      ['stripe', 'May not serve customers in Canada'],
    ]);
    expect(rows.filter((row) => row.warning)).toHaveLength(2);
    expect(rows.find((row) => row.id === 'coinbase')?.warning).toBeUndefined();
    expect(view.recommended.every((row) => row.warning === undefined)).toBe(true);
    expect(rows).toHaveLength(16);
  });

  it('the checkout signals: a provider the circuit breaker does not list is left off; measured conversion reorders', async () => {
    const ports: CheckoutPorts = {
      rankingMinAttempts: 100,
      signals: {
        listed: async (ids) => ids.filter((id) => id !== 'transak'),
        measured: async () =>
          new Map([
            ['moonpay', { attempts: 200, reachedUsdc: 100, minutesToUsdc: 12 }],
            ['particle', { attempts: 200, reachedUsdc: 180, minutesToUsdc: 9 }],
            // Too few attempts to count: stays where the operator put it.
            ['guardarian', { attempts: 20, reachedUsdc: 20 }],
          ]),
      },
    };
    const { view, rows } = await page(service(true, fixedRates, ports), query);
    expect(rows.map((row) => row.id)).not.toContain('transak');
    expect(view.recommended.map((row) => row.id).slice(0, 3)).toEqual(['particle', 'guardarian', 'moonpay']);
    expect(rows.find((row) => row.id === 'particle')?.time).toBe('USDC in about 9 minutes (measured here)');
  });

  it('unknown wallet: 400, as Process Payment answers it; wallet lookup failing: 503', async () => {
    expect(await service(false).prepare(query)).toMatchObject({ kind: 'error', status: 400, problems: [{ param: 'address' }] });
    const failing = new HostedCheckoutService({
      keys,
      wallets: { orderTermsOf: async () => Promise.reject(new Error('ECONNREFUSED')) },
      rates: fixedRates,
      providers: SPEC_PROVIDERS,
    });
    expect(await failing.prepare(query)).toMatchObject({ kind: 'error', status: 503 });
  });

  it('rates unavailable: offers what needs no rate and says why the USD-only providers are missing', async () => {
    const stale = new GatewayError('service_unavailable', 'rates too old');
    const outcome = await page(service(true, { current: async () => Promise.reject(stale) }), {
      ...query,
      currency: 'CAD',
      amount: '150',
    });
    expect(outcome.ratesError).toBe(stale);
    expect(outcome.rows.map((provider) => provider.id)).toEqual(['interac']);
    // Without a rate a CAD charge cannot be valued in USD: the row gives no USDC figure rather than a guess.
    expect(outcome.rows[0]?.receives).toBeUndefined();
    expect(outcome.view.unavailable.find((provider) => provider.id === 'moonpay')).toEqual({
      id: 'moonpay',
      name: 'MoonPay',
      reason: 'Exchange rate unavailable right now',
    });
    expect(outcome.view.withheldNote).toBe(
      'Wert, Stripe, Ramp Network and TransFi take USD only, and the exchange rate to convert CAD is not available right now. Try again ' +
        'in a few minutes to see them here.',
    );
  });
});
