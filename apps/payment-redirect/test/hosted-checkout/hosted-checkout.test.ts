// GET /pay.php, the hosted multi-provider checkout, through the whole app (app.inject) on a fresh
// PostgreSQL schema: the provider list per currency, each link, branding, bad links, frames, rates.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { GatewayError, parseRate, sealAddressIn, type EvmAddress, type RateTable } from '@gateway/domain';
import { buildPaymentRedirectApp } from '../../src/app';
import type { PaymentRedirectConfig } from '../../src/config';
import type { CheckoutPorts } from '../../src/services/checkout-rows';
import { paymentRedirectFixture, payout } from '../support/payment-redirect-fixture';

const fixture = paymentRedirectFixture('hosted_checkout');
let app: FastifyInstance;
let config: PaymentRedirectConfig;
let addressIn: string;
const temporary = '0x2222222222222222222222222222222222222222' as EvmAddress;
const EMAIL = 'jane.doe@shop.io';
// The page reads rates through app.rateReader: the tests pin them.
const RATES: RateTable = new Map([
  ['EUR', parseRate('0.92')],
  ['GBP', parseRate('0.79')],
  ['CAD', parseRate('1.37')],
  ['INR', parseRate('83.1')],
]);

const checkout = (query: Record<string, string | string[]>) => app.inject({ method: 'GET', url: '/pay.php', query });
const order = (amount: string, currency: string, extra: Record<string, string> = {}) =>
  checkout({ address: addressIn, amount, email: EMAIL, currency, ...extra });

const decode = (text: string) =>
  text
    .replace(/&#(\d+);/g, (_entity, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'");
const strip = (html: string) =>
  decode(html.replace(/<[^>]+>/g, ' '))
    .replace(/\s+/g, ' ')
    .trim();

interface AvailableRow {
  href: URL;
  /** The name, the amount (and the order's, converted) and the arrow, as a sighted customer reads them. */
  text: string;
  /** The row's facts: what the shop receives, fees, methods, time, a warning. */
  facts: string[];
  /** Shown at once, or behind "More providers". */
  shown: 'recommended' | 'more';
}

interface Listed {
  available: Map<string, AvailableRow>;
  unavailable: Map<string, string>;
}

/** The provider rows as the page renders them (available: link, visible text and facts; unavailable: reason). */
function providers(html: string): Listed {
  const available = new Map<string, AvailableRow>();
  const disclosure = html.indexOf('<details class="more-providers"');
  for (const match of html.matchAll(/<a class="provider" href="([^"]+)" data-provider="([a-z]+)">([\s\S]*?)<\/a>/g)) {
    const body = match[3]!;
    available.set(match[2]!, {
      href: new URL(decode(match[1]!), 'http://pay.test'),
      text: strip(body.replace(/<span class="visually-hidden">.*?<\/span>/, '').replace(/<span class="fact [a-z-]+">.*?<\/span>/g, '')),
      facts: [...body.matchAll(/<span class="fact [a-z-]+">(.*?)<\/span>/g)].map((fact) => decode(fact[1]!)),
      shown: disclosure !== -1 && match.index! > disclosure ? 'more' : 'recommended',
    });
  }
  const unavailable = new Map<string, string>();
  for (const match of html.matchAll(/<li data-provider="([a-z]+)">.*?<span class="provider-reason">(.*?)<\/span><\/li>/g)) {
    unavailable.set(match[1]!, decode(match[2]!));
  }
  return { available, unavailable };
}

function expectHtml(response: LightMyRequestResponse, status: number): string {
  expect(response.statusCode).toBe(status);
  expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(response.headers['x-frame-options']).toBe('DENY');
  expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  return response.body;
}

beforeAll(async () => {
  config = fixture.config();
  app = await fixture.build(config);
  jest.spyOn(app.rateReader, 'current').mockResolvedValue({ rates: RATES, asOf: new Date(), source: 'test' });
  addressIn = sealAddressIn(temporary, config.keys);
  await fixture.insertWallet({ temporary, addressIn, callbackUrl: 'https://shop.io/ipn?order=1' });
});

describe('GET /pay.php: the providers for the order', () => {
  it('USD: every USD and any-currency provider, those under their minimum unavailable with the reason', async () => {
    const html = expectHtml(await order('49.99', 'USD'), 200);
    const { available, unavailable } = providers(html);
    // One group (no conversion): the providers made for USD first, then those that take any currency.
    expect([...available.keys()]).toEqual([
      'wert',
      'stripe',
      'rampnetwork',
      'transak',
      'moonpay',
      'guardarian',
      'particle',
      'coinbase',
      'sardine',
      'banxa',
      'alchemypay',
      'mercuryo',
      'topper',
      'unlimit',
      // The providers the plugins add, after the specification's.
      'revolut',
      'swipelux',
      'paypal',
      'binance',
    ]);
    expect(html).not.toContain('group-heading');
    expect(Object.fromEntries(unavailable)).toEqual({
      utorg: 'Minimum 50.00 USD',
      simplex: 'Minimum 50.00 USD',
      transfi: 'Minimum 70.00 USD',
    });
    expect(available.get('wert')?.text).toBe('Wert 49.99 USD ›');
    expect(available.get('rampnetwork')?.text).toBe('Ramp Network 49.99 USD ›');
    for (const [, { text }] of available) expect(text).toMatch(/^[A-Za-z ()]+ 49\.99 USD ›$/);
    expect(html).not.toMatch(/interac|upi/i);
    expect(strip(html)).toContain('49.99 USD');
    expect(html).toContain('<title>Pay 49.99 USD</title>');
  });

  it('takes the links existing plugins build: lower-case currency, a provider=hosted parameter, a float amount', async () => {
    const { available } = providers(expectHtml(await order('49.9', 'eur', { provider: 'hosted' }), 200));
    expect(available.get('moonpay')?.text).toBe('MoonPay 49.90 EUR ›');
    expect(available.get('moonpay')?.href.searchParams.get('provider')).toBe('moonpay');
  });

  it('every provider link is Process Payment with the amount and currency that provider charges', async () => {
    const { available } = providers((await order('49.99', 'EUR')).body);
    for (const [id, { href }] of available) {
      expect(href.pathname).toBe('/process-payment.php');
      const usdOnly = ['wert', 'stripe', 'rampnetwork'].includes(id);
      expect(Object.fromEntries(href.searchParams)).toEqual({
        address: addressIn,
        amount: usdOnly ? '54.34' : '49.99',
        provider: id,
        email: EMAIL,
        currency: usdOnly ? 'USD' : 'EUR',
      });
    }
  });

  it('EUR: USD-only providers show the amount converted to USD (rounded up) beside the order amount', async () => {
    const html = expectHtml(await order('49.99', 'EUR'), 200);
    const { available, unavailable } = providers(html);
    // 49.99 / 0.92 = 54.3369… → 54.34 USD
    expect(available.get('wert')?.text).toBe('Wert 54.34 USD (49.99 EUR) ›');
    expect(available.get('rampnetwork')?.text).toBe('Ramp Network 54.34 USD (49.99 EUR) ›');
    expect(available.get('moonpay')?.text).toBe('MoonPay 49.99 EUR ›');
    expect(available.get('simplex')?.text).toBe('Simplex 49.99 EUR ›');
    expect(Object.fromEntries(unavailable)).toEqual({ transfi: 'Minimum 70.00 USD' });
    // What is charged in EUR first (the provider made for EUR at the top), then the USD-only providers, the conversion explained.
    expect([...available.keys()][0]).toBe('werteur');
    expect([...available.keys()].slice(-3)).toEqual(['wert', 'stripe', 'rampnetwork']);
    expect(strip(html)).toContain(
      'Wert, Stripe and Ramp Network take US dollars only: the 49.99 EUR order converted at the current exchange rate, rounded up to the cent.',
    );

    const low = providers((await order('30', 'EUR')).body);
    // 30 / 0.92 = 32.6086… → 32.61 USD; 50 USD minimums are 46.00 EUR
    expect(low.available.get('stripe')?.text).toBe('Stripe 32.61 USD (30.00 EUR) ›');
    expect(Object.fromEntries(low.unavailable)).toEqual({
      utorg: 'Minimum 46.00 EUR',
      simplex: 'Minimum 46.00 EUR',
      transfi: 'Minimum 70.00 USD',
    });
  });

  it('CAD: Interac appears with its own minimum, UPI does not', async () => {
    const { available, unavailable } = providers(expectHtml(await order('150', 'CAD'), 200));
    expect(available.get('interac')?.text).toBe('Interac e-Transfer (via MoonPay) 150.00 CAD ›');
    expect([...available.keys()][0]).toBe('interac'); // made for CAD: at the top
    expect(Object.fromEntries(available.get('interac')!.href.searchParams)).toMatchObject({
      amount: '150.00',
      currency: 'CAD',
      provider: 'interac',
    });
    // 150 / 1.37 = 109.4890… → 109.49 USD
    expect(available.get('transfi')?.text).toBe('TransFi 109.49 USD (150.00 CAD) ›');
    expect(available.has('upi') || unavailable.has('upi')).toBe(false);
    expect(unavailable.size).toBe(0);

    expect(providers((await order('99.99', 'CAD')).body).unavailable.get('interac')).toBe('Minimum 100.00 CAD');
    const low = providers((await order('60', 'CAD')).body);
    // 50 USD × 1.37 = 68.50 CAD; 60 / 1.37 = 43.7956… → 43.80 USD, under TransFi's 70 USD
    expect(Object.fromEntries(low.unavailable)).toEqual({
      utorg: 'Minimum 68.50 CAD',
      simplex: 'Minimum 68.50 CAD',
      transfi: 'Minimum 70.00 USD',
      interac: 'Minimum 100.00 CAD',
    });
    expect(low.available.get('wert')?.text).toBe('Wert 43.80 USD (60.00 CAD) ›');
  });

  it('INR: UPI appears, Interac does not', async () => {
    const { available, unavailable } = providers(expectHtml(await order('2500', 'inr'), 200));
    expect(available.get('upi')?.text).toBe('UPI (via Onramp.money) 2500.00 INR ›');
    expect([...available.keys()][0]).toBe('upi');
    // 2500 / 83.1 = 30.0842… → 30.09 USD
    expect(available.get('wert')?.text).toBe('Wert 30.09 USD (2500.00 INR) ›');
    expect(available.has('interac') || unavailable.has('interac')).toBe(false);
    // 50 USD × 83.1 = 4155 INR; 30 USD = 2493 INR (Particle, Sardine, Mercuryo take it)
    expect(Object.fromEntries(unavailable)).toEqual({
      utorg: 'Minimum 4155.00 INR',
      simplex: 'Minimum 4155.00 INR',
      transfi: 'Minimum 70.00 USD',
    });
    expect(available.has('particle')).toBe(true);
    // Coinbase takes USD, CAD, GBP and EUR only: not listed at all.
    expect(available.has('coinbase') || unavailable.has('coinbase')).toBe(false);
  });

  it('choosing a provider goes through Process Payment and records the payment it charges', async () => {
    const { available } = providers((await order('49.99', 'EUR')).body);
    const link = available.get('wert')!.href;
    const response = await app.inject({ url: `${link.pathname}${link.search}`, headers: { accept: 'application/json' } });
    expect(response.statusCode).toBe(200);
    const { rows } = await fixture.db.pool.query('SELECT amount::text, currency, provider, email FROM payments WHERE id = $1', [
      response.json().payment_id,
    ]);
    expect(rows[0]).toEqual({ amount: '54.34', currency: 'USD', provider: 'wert', email: EMAIL });
    const redirect = await app.inject({ url: `${link.pathname}${link.search}`, headers: { accept: 'text/html' } });
    expect(redirect.statusCode).toBe(302);
  });

  it('rates unavailable: offers what needs no rate, says why the others are missing, and Process Payment agrees', async () => {
    const stale = () => new GatewayError('service_unavailable', 'exchange rates are too old');
    jest.mocked(app.rateReader.current).mockRejectedValueOnce(stale());
    const html = expectHtml(await order('150', 'CAD'), 200);
    const { available, unavailable } = providers(html);
    expect([...available.keys()]).toEqual(['interac']);
    expect(unavailable.get('moonpay')).toBe('Exchange rate unavailable right now');
    expect(unavailable.has('wert')).toBe(false);
    expect(strip(html)).toContain(
      'Wert, Stripe, Ramp Network and TransFi take USD only, and the exchange rate to convert CAD is not available right now.',
    );
    // What the page offers, Process Payment takes without a rate; what it does not, Process Payment refuses.
    jest.mocked(app.rateReader.current).mockRejectedValueOnce(stale());
    const interac = available.get('interac')!.href;
    expect((await app.inject({ url: `${interac.pathname}${interac.search}`, headers: { accept: 'application/json' } })).statusCode).toBe(
      200,
    );
    jest.mocked(app.rateReader.current).mockRejectedValueOnce(stale());
    const moonpay = await app.inject({
      url: '/process-payment.php',
      query: { address: addressIn, amount: '150', provider: 'moonpay', email: EMAIL, currency: 'CAD' },
      headers: { accept: 'application/json' },
    });
    expect(moonpay.statusCode).toBe(503);

    // EUR: only a provider made for EUR, its minimum in EUR (Wert (EUR)), can be offered without a rate; the others are not linked.
    jest.mocked(app.rateReader.current).mockRejectedValueOnce(stale());
    const eur = expectHtml(await order('49.99', 'EUR'), 200);
    expect([...providers(eur).available.keys()]).toEqual(['werteur']);
    // With no provider left, the page says so instead of offering links that fail.
    jest.mocked(app.rateReader.current).mockRejectedValueOnce(stale());
    const gbp = expectHtml(await order('49.99', 'GBP'), 200);
    expect(providers(gbp).available.size).toBe(0);
    expect(strip(gbp)).toContain('No provider can take this order right now. Try again in a few minutes');
    // A USD order needs no rate: nothing is missing.
    jest.mocked(app.rateReader.current).mockRejectedValueOnce(stale());
    const usd = await order('49.99', 'USD');
    expect(providers(usd.body).available.size).toBe(18);
    expect(usd.body).not.toContain('rates-note');
  });
});

describe('GET /pay.php: what each row says, and the order', () => {
  it('3 to 5 recommended rows, the rest behind "More providers (N)"; each says price, USDC, methods and time', async () => {
    const html = expectHtml(await order('49.99', 'USD'), 200);
    const { available } = providers(html);
    const shown = [...available].filter(([, row]) => row.shown === 'recommended').map(([id]) => id);
    expect(shown).toEqual(['wert', 'stripe', 'rampnetwork', 'transak', 'moonpay']);
    expect(html).toContain(`<summary>More providers (${available.size - 5})</summary>`);
    // A <details> disclosure: no script opens it.
    expect(html).toMatch(/<details class="more-providers" id="more-providers">\s*<summary>/);
    // The sandbox stands in for MoonPay here, with its own documented fee: the estimate Process Payment records.
    expect(available.get('moonpay')?.facts).toEqual([
      expect.stringMatching(/^Fees included: the shop receives about \d+\.\d\d USDC \(estimated from its published fees\)$/),
      'Card, Apple Pay, Google Pay, PayPal',
      'USDC in about 20 minutes (per MoonPay)',
    ]);
    expect(available.get('stripe')?.facts).toContain('Card, Apple Pay, Google Pay, Bank transfer');
    expect(available.get('wert')?.facts).toContain('USDC in about 30 minutes (typical)');
  });

  describe('with a quote service and the customer country from a trusted proxy (the ports the app is built with)', () => {
    let ported: FastifyInstance;
    const asked: string[] = [];
    const ports: CheckoutPorts = {
      quotes: {
        // A quote service as the page sees it: 2 % on top for MoonPay and Banxa, what the shop gets; an estimate for the others.
        async quote(quoteOrder) {
          asked.push(`${quoteOrder.provider} ${quoteOrder.amount.text} ${quoteOrder.currency}`);
          if (quoteOrder.provider !== 'moonpay' && quoteOrder.provider !== 'banxa') {
            return {
              provider: quoteOrder.provider,
              basis: 'estimate',
              usdc: 48_000_000n,
              total: quoteOrder.amount.text,
              currency: quoteOrder.currency,
            };
          }
          return { provider: quoteOrder.provider, basis: 'quote', usdc: 49_990_000n, total: '50.99', currency: quoteOrder.currency };
        },
      },
      customerLocation: (headers) => (typeof headers['x-test-country'] === 'string' ? { country: headers['x-test-country'] } : undefined),
    };

    beforeAll(async () => {
      ported = await buildPaymentRedirectApp({
        config,
        pool: fixture.db.appPool('payment-redirect'),
        redis: fixture.cache.redis,
        logger: false,
        checkoutPorts: ports,
      });
      jest.spyOn(ported.rateReader, 'current').mockResolvedValue({ rates: RATES, asOf: new Date(), source: 'test' });
    });
    afterAll(() => ported.close());

    const portedOrder = (headers: Record<string, string> = {}) =>
      ported.inject({ url: '/pay.php', query: { address: addressIn, amount: '49.99', email: EMAIL, currency: 'USD' }, headers });

    it('a quoted row says what the customer pays with fees and what the shop receives; the link still carries the order', async () => {
      const { available } = providers(expectHtml(await portedOrder(), 200));
      expect(asked).toContain('moonpay 49.99 USD');
      expect(available.get('moonpay')?.text).toBe('MoonPay 50.99 USD Fees included ›');
      expect(available.get('moonpay')?.facts[0]).toBe('The shop receives 49.99 USDC');
      expect(available.get('moonpay')?.href.searchParams.get('amount')).toBe('49.99');
      // The quote service's estimate for the others, said as an estimate.
      expect(available.get('transak')?.facts[0]).toBe(
        'Fees included: the shop receives about 48.00 USDC (estimated from its published fees)',
      );
    });

    it("a provider that may not serve the customer's country is marked and listed last, never hidden", async () => {
      const { available } = providers(expectHtml(await portedOrder({ 'x-test-country': 'CA' }), 200));
      const ids = [...available.keys()];
      const marked = ids.filter((id) => available.get(id)?.facts[0] === 'May not serve customers in Canada');
      // Banxa's list excludes Canada, Stripe serves the US only (and the plugins' Revolut and PayPal list no Canada).
      expect(marked).toEqual(expect.arrayContaining(['banxa', 'stripe']));
      expect(ids.slice(-marked.length)).toEqual(marked);
      expect(ids).toHaveLength(18);
      expect(marked.every((id) => available.get(id)?.shown === 'more')).toBe(true);
      // Without the header nothing is marked.
      const plain = providers((await portedOrder()).body);
      expect([...plain.available.values()].some((row) => row.facts.some((fact) => fact.startsWith('May not serve')))).toBe(false);
    });
  });
});

describe('GET /pay.php: branding', () => {
  it('applies valid branding: colours as custom properties, the shop name, an https logo allowed by the page CSP only', async () => {
    const plain = await order('49.99', 'USD');
    const response = await order('49.99', 'USD', {
      domain: 'Shop.io',
      logo: 'https://cdn.shop.io/logo.png',
      background: '#F4F1EA',
      button: '#0a7',
      theme: 'dark',
    });
    const html = expectHtml(response, 200);
    expect(html).toContain(
      '<body class="gateway checkout theme-dark" style="--bg:#f4f1ea;--page-ink:#111827;--accent:#00aa77;--accent-ink:#111827">',
    );
    expect(html).toContain(
      '<img class="brand-logo" src="https://cdn.shop.io/logo.png" alt="" height="32" referrerpolicy="no-referrer">Shop.io',
    );
    expect(html).toContain('<title>Pay 49.99 USD · Shop.io</title>');
    const policy = String(plain.headers['content-security-policy']);
    expect(policy).toMatch(/img-src 'self' data:(;|$)/);
    expect(response.headers['content-security-policy']).toBe(
      policy.replace("img-src 'self' data:", "img-src 'self' data: https://cdn.shop.io"),
    );
    expect(response.headers['referrer-policy']).toBe('no-referrer');
  });

  it('ignores what is not valid and escapes the shop name', async () => {
    const plain = await order('49.99', 'USD');
    const refused: Array<Record<string, string>> = [
      { button: 'red' },
      { background: 'url(https://evil.io/x.png)' },
      { button: '#fff;background:url(//evil.io)' },
      { logo: 'http://cdn.shop.io/logo.png' },
      { logo: 'javascript:alert(1)' },
      { theme: 'neon' },
    ];
    for (const branding of refused) {
      const response = await order('49.99', 'USD', branding);
      const html = expectHtml(response, 200);
      expect(html).not.toContain('style="');
      expect(html).not.toContain('<img');
      expect(html).not.toContain('evil.io');
      expect(html).not.toContain('javascript:');
      expect(html).not.toContain('onerror');
      expect(html).toContain('<body class="gateway checkout">');
      expect(response.headers['content-security-policy']).toBe(plain.headers['content-security-policy']);
      expect(providers(html).available.size).toBe(18);
    }
    // A quote in a logo URL is percent-encoded by URL parsing: it can never close the attribute.
    const quoted = (await order('49.99', 'USD', { logo: 'https://cdn.shop.io/x.png" onerror="alert(1)' })).body;
    expect(quoted).toContain('<img class="brand-logo" src="https://cdn.shop.io/x.png%22%20onerror=%22alert(1)" alt=""');
    expect(quoted).not.toContain('" onerror');
    const html = (await order('49.99', 'USD', { domain: '<script>alert(1)</script>"\'' })).body;
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;');
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((match) => match[0]);
    expect(scripts).toEqual(['<script src="/assets/frame-guard.js" defer>']);
  });
});

describe('GET /pay.php: bad links get an HTML page that says what to fix', () => {
  const valid = () => ({ address: addressIn, amount: '49.99', email: EMAIL, currency: 'USD' });
  const problem = (html: string, param: string) => {
    const match = new RegExp(`<dd data-param="${param}">(.*?)</dd>`).exec(html);
    return match ? decode(match[1]!) : undefined;
  };

  it.each([
    ['missing address', { address: undefined }, 'address', /address is missing: add address=<the address_in returned by Create Wallet>/],
    ['a payout 0x address', { address: payout }, 'address', /plain 0x wallet address is not accepted here/],
    ['an address_in that does not open', { address: 'k1.AAAA' }, 'address', /not an address_in issued by this gateway/],
    ['amount 0', { amount: '0' }, 'amount', /amount must be greater than 0/],
    ['amount 1e3', { amount: '1e3' }, 'amount', /plain positive decimal.*\(got "1e3"\)/],
    ['amount with 3 decimals', { amount: '49.999' }, 'amount', /more than 2 decimals/],
    ['a bad e-mail', { email: 'jane' }, 'email', /e-mail address, e.g. jane@example.com/],
    ['missing e-mail', { email: '' }, 'email', /email is missing/],
    ['an unknown currency', { currency: 'XYZ' }, 'currency', /XYZ is not supported; use one of USD, EUR/],
    ['a currency that is not a code', { currency: 'euro' }, 'currency', /three-letter ISO 4217 code/],
  ])('%s: 400', async (_case, change, param, message) => {
    const query = Object.fromEntries(Object.entries({ ...valid(), ...change }).filter(([, value]) => value !== undefined)) as Record<
      string,
      string
    >;
    const html = expectHtml(await checkout(query), 400);
    expect(html).toContain('<h1>This payment link is not valid</h1>');
    expect(problem(html, param)).toMatch(message);
    expect(html).not.toContain('class="provider"');
  });

  it('names every bad parameter at once, a repeated one included', async () => {
    const html = expectHtml(await checkout({ address: payout, amount: ['1', '2'], email: 'x', currency: 'usd' }), 400);
    expect(problem(html, 'address')).toMatch(/0x wallet address/);
    expect(problem(html, 'amount')).toBe('amount is given more than once; send it once');
    expect(problem(html, 'email')).toMatch(/e-mail/);
    expect(problem(html, 'currency')).toBeUndefined();
  });

  it('no parameter at all: 400 naming all four', async () => {
    const html = expectHtml(await app.inject({ url: '/pay.php' }), 400);
    for (const param of ['address', 'amount', 'email', 'currency']) expect(problem(html, param)).toMatch(/is missing/);
  });

  it('an address_in of no wallet here: 400, as Process Payment answers it', async () => {
    const stranger = sealAddressIn('0x3333333333333333333333333333333333333333', config.keys);
    const html = expectHtml(await checkout({ ...valid(), address: stranger }), 400);
    expect(html).toContain('<h1>This payment link points to an unknown wallet</h1>');
    expect(problem(html, 'address')).toMatch(/no wallet of this gateway has it.*call Create Wallet/);
  });

  it('answers each bad parameter with what Process Payment answers for it, trimming nothing', async () => {
    const stranger = sealAddressIn('0x3333333333333333333333333333333333333333', config.keys);
    const cases: Array<[string, Record<string, string>]> = [
      ['address', { address: ` ${addressIn}` }],
      ['address', { address: `${addressIn} ` }],
      ['address', { address: stranger }],
      ['address', { address: payout }],
      ['amount', { amount: ' 49.99' }],
      ['amount', { amount: '49.99 ' }],
      ['amount', { amount: '1e3' }],
      ['currency', { currency: ' USD' }],
      ['currency', { currency: 'XYZ' }],
      ['email', { email: ' jane@shop.io' }],
      ['email', { email: 'jane' }],
    ];
    for (const [param, change] of cases) {
      const query = { ...valid(), ...change };
      const processPayment = await app.inject({
        url: '/process-payment.php',
        query: { ...query, provider: 'moonpay' },
        headers: { accept: 'application/json' },
      });
      expect([param, processPayment.statusCode]).toEqual([param, 400]);
      expect(processPayment.json()).toMatchObject({ param });
      const html = expectHtml(await checkout(query), 400);
      expect([change, problem(html, param)]).toEqual([change, processPayment.json().error]);
    }
  });

  it('is HTML even for a client that asks for JSON, and never echoes markup', async () => {
    const response = await app.inject({
      url: '/pay.php',
      query: { ...valid(), amount: '<b>1</b>' },
      headers: { accept: 'application/json' },
    });
    const html = expectHtml(response, 400);
    expect(html).not.toContain('<b>1</b>');
    expect(html).toContain('&lt;b&gt;1&lt;/b&gt;');
  });
});

describe('GET /pay.php: frames and documentation', () => {
  it('refuses to be framed, and carries the frame guard that hides a framed page', async () => {
    const html = expectHtml(await order('49.99', 'USD'), 200);
    expect(html).toContain('<script src="/assets/frame-guard.js" defer></script>');
    expect(html).toContain('id="framed-warning" hidden');
    expect(html).toContain('<main class="card" id="main">');
    const guard = await app.inject({ url: '/assets/frame-guard.js' });
    expect(guard.statusCode).toBe(200);
    expect(guard.body).toContain("getElementById('framed-warning')");
  });

  it('is in the OpenAPI document with its parameters described', async () => {
    const spec = (await app.inject({ url: '/docs/json' })).json();
    const operation = spec.paths['/pay.php'].get;
    expect(operation.summary).toBe('Process Payment - Multi-Providers (hosted checkout)');
    const params = Object.fromEntries(
      operation.parameters.map((p: { name: string; required: boolean; description: string }) => [p.name, p]),
    );
    expect(Object.keys(params).sort()).toEqual([
      'address',
      'amount',
      'background',
      'button',
      'currency',
      'domain',
      'email',
      'logo',
      'theme',
    ]);
    expect(params.address).toMatchObject({ required: true, description: expect.stringContaining('address_in') });
    expect(params.logo).toMatchObject({ required: false, description: expect.stringContaining('https') });
  });
});
