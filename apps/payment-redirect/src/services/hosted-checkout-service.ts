import {
  GatewayError,
  openTemporaryAddress,
  parseCurrency,
  parseEmail,
  parseFiatAmount,
  providerOptions,
  type CurrencyCode,
  type EvmAddress,
  type FiatAmount,
  type ProviderOption,
  type ProviderTerms,
  type RateTable,
  type SealingKeyRing,
} from '@gateway/domain';
import type { RateReader } from '@gateway/rates';

/** The query as it arrived: any parameter may be missing, repeated (an array) or anything at all. */
export type RawQuery = Readonly<Record<string, unknown>>;

/** A checkout link whose every required parameter is valid (the wallet not yet looked up). */
export interface CheckoutLink {
  /** The address_in exactly as the link carries it: passed on to Process Payment unchanged. */
  addressIn: string;
  temporaryAddress: EvmAddress;
  amount: FiatAmount;
  currency: CurrencyCode;
  email: string;
}

/** One thing wrong with a link: the parameter and what to do about it. */
export interface LinkProblem {
  param: string;
  message: string;
}

export type Theme = 'light' | 'dark';

/** The optional look a merchant asks for; what is not valid is dropped (and named in `ignored`). */
export interface Branding {
  shopName?: string;
  logoUrl?: string;
  /** The logo's origin, for the page's Content-Security-Policy img-src. */
  logoOrigin?: string;
  theme: Theme;
  background?: string;
  button?: string;
  /** Branding parameters that were given but refused (logged, never shown). */
  ignored: string[];
}

export interface AvailableProviderView {
  id: string;
  name: string;
  /** Process Payment with this provider and the amount it charges: a plain link. */
  href: string;
  amount: string;
  currency: CurrencyCode;
  /** The order's own amount, when the provider charges it converted to USD, e.g. "49.99 EUR". */
  orderAmount?: string;
}

/** Providers charging one currency: the order's own first, then USD conversions. */
export interface ProviderGroupView {
  id: string;
  currency: CurrencyCode;
  /** Shown when the page has more than one group, e.g. "Charged in US dollars". */
  heading: string;
  hint?: string;
  providers: AvailableProviderView[];
}

export interface UnavailableProviderView {
  id: string;
  name: string;
  reason: string;
}

export interface CheckoutPageView {
  title: string;
  shopName?: string;
  logoUrl?: string;
  /** `theme=dark`. (Not `theme`: the layout has a field of that name.) */
  dark: boolean;
  /** Inline CSS custom properties from the branding colours (validated hex only), or undefined. */
  style?: string;
  amount: string;
  currency: CurrencyCode;
  /** Every provider the customer can choose, in the order shown (the groups, one after the other). */
  available: AvailableProviderView[];
  groups: ProviderGroupView[];
  unavailable: UnavailableProviderView[];
  /** Why some providers are not listed at all (no exchange rate right now), or undefined. */
  withheldNote?: string;
}

export interface CheckoutErrorView {
  title: string;
  heading: string;
  intro: string;
  problems: LinkProblem[];
  dark: boolean;
  style?: string;
}

export type CheckoutOutcome =
  | { kind: 'page'; view: CheckoutPageView; logoOrigin?: string; ignoredBranding: string[]; ratesError?: unknown }
  | { kind: 'error'; status: 400 | 404 | 503; view: CheckoutErrorView; problems: LinkProblem[]; cause?: unknown };

export interface HostedCheckoutDeps {
  keys: SealingKeyRing;
  wallets: { hasTemporaryAddress(polygonAddress: string): Promise<boolean> };
  rates: RateReader;
  /** The providers this gateway offers, in the order listed. */
  providers: readonly ProviderTerms[];
}

const REQUIRED_PARAMS = {
  address: 'add address=<the address_in returned by Create Wallet>, URL-encoded',
  amount: 'add amount=<the order total>, e.g. amount=49.99',
  email: "add email=<the customer's e-mail address>, URL-encoded",
  currency: 'add currency=<the ISO 4217 code of the order>, e.g. currency=USD',
} as const;

const MAX_SHOP_NAME = 60;
const MAX_LOGO_URL = 2048;
const HEX_COLOUR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;
const HOST_NAME = /^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$/;

/**
 * The hosted multi-provider checkout (`pay.php`): checks the link as Process Payment would, reads
 * the exchange rates, and lists each provider with the link that starts Process Payment for it.
 * Which provider is offered for which order is `providerOptions` in packages/domain.
 */
export class HostedCheckoutService {
  constructor(private readonly deps: HostedCheckoutDeps) {}

  async prepare(query: RawQuery): Promise<CheckoutOutcome> {
    const branding = parseBranding(query);
    const parsed = parseCheckoutLink(query, this.deps.keys);
    if ('problems' in parsed) {
      return { kind: 'error', status: 400, problems: parsed.problems, view: linkErrorView(parsed.problems, branding) };
    }
    const { link } = parsed;
    let known: boolean;
    try {
      known = await this.deps.wallets.hasTemporaryAddress(link.temporaryAddress);
    } catch (cause) {
      return { kind: 'error', status: 503, problems: [], cause, view: unavailableView(branding) };
    }
    if (!known) {
      const problems = [
        {
          param: 'address',
          message:
            'address opens, but no wallet of this gateway has it (a wallet from another installation or one since removed); call Create Wallet (/control/wallet.php) again and send its address_in',
        },
      ];
      return {
        kind: 'error',
        status: 404,
        problems,
        view: linkErrorView(problems, branding, 'This payment link points to an unknown wallet'),
      };
    }
    let rates: RateTable | undefined;
    let ratesError: unknown;
    try {
      rates = (await this.deps.rates.current()).rates;
    } catch (error) {
      ratesError = error;
    }
    const view = checkoutPageView(link, providerOptions(link.amount, link.currency, rates, this.deps.providers), branding);
    return { kind: 'page', view, logoOrigin: branding.logoOrigin, ignoredBranding: branding.ignored, ratesError };
  }
}

/**
 * The required parameters, each checked as Process Payment checks it (the same domain functions),
 * and every problem reported at once so a merchant fixes the link in one go.
 */
export function parseCheckoutLink(query: RawQuery, keys: SealingKeyRing): { link: CheckoutLink } | { problems: LinkProblem[] } {
  const problems: LinkProblem[] = [];
  const check = <T>(param: keyof typeof REQUIRED_PARAMS, parse: (value: string) => T): T | undefined => {
    const value = query[param];
    if (value === undefined || value === '') {
      problems.push({ param, message: `${param} is missing: ${REQUIRED_PARAMS[param]}` });
      return undefined;
    }
    if (typeof value !== 'string') {
      problems.push({ param, message: `${param} is given more than once; send it once` });
      return undefined;
    }
    try {
      return parse(value);
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      problems.push({ param, message: error.message });
      return undefined;
    }
  };
  const temporaryAddress = check('address', (value) => openTemporaryAddress(value.trim(), keys));
  const amount = check('amount', (value) => parseFiatAmount(value.trim()));
  const currency = check('currency', (value) => parseCurrency(value));
  const email = check('email', (value) => parseEmail(value));
  if (problems.length > 0 || !temporaryAddress || !amount || !currency || !email) return { problems };
  return { link: { addressIn: String(query.address).trim(), temporaryAddress, amount, currency, email } };
}

/** Optional branding: only what is certainly safe is kept; anything else is ignored. */
export function parseBranding(query: RawQuery): Branding {
  const ignored: string[] = [];
  const text = (param: string): string | undefined => {
    const value = query[param];
    if (value === undefined || value === '') return undefined;
    if (typeof value !== 'string') {
      ignored.push(param);
      return undefined;
    }
    return value;
  };
  const branding: Branding = { theme: 'light', ignored };

  const domain = text('domain');
  if (domain !== undefined) {
    const name = shopName(domain);
    if (name) branding.shopName = name;
    else ignored.push('domain');
  }
  const logo = text('logo');
  if (logo !== undefined) {
    const url = httpsImageUrl(logo);
    if (url) {
      branding.logoUrl = url.href;
      branding.logoOrigin = url.origin;
    } else ignored.push('logo');
  }
  const theme = text('theme');
  if (theme !== undefined) {
    const normalized = theme.trim().toLowerCase();
    if (normalized === 'light' || normalized === 'dark') branding.theme = normalized;
    else ignored.push('theme');
  }
  for (const param of ['background', 'button'] as const) {
    const colour = text(param);
    if (colour === undefined) continue;
    const trimmed = colour.trim();
    if (HEX_COLOUR.test(trimmed)) branding[param] = expandHex(trimmed);
    else ignored.push(param);
  }
  return branding;
}

// Controls (C0, DEL, C1), zero-width characters and bidirectional overrides.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g;

/** A merchant's name as plain text: control characters dropped, whitespace collapsed, length capped. */
function shopName(input: string): string | undefined {
  const cleaned = input.replace(UNPRINTABLE, ' ').replace(/\s+/g, ' ').trim();
  if (!cleaned) return undefined;
  const characters = [...cleaned];
  return characters.length > MAX_SHOP_NAME
    ? `${characters
        .slice(0, MAX_SHOP_NAME - 1)
        .join('')
        .trimEnd()}…`
    : cleaned;
}

/** An absolute https URL on a named host, with no credentials: anything else is never loaded. */
function httpsImageUrl(input: string): URL | undefined {
  const trimmed = input.trim();
  if (trimmed.length > MAX_LOGO_URL) return undefined;
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' || url.username || url.password || !HOST_NAME.test(url.hostname) || !url.hostname.includes('.'))
    return undefined;
  return url;
}

function expandHex(colour: string): string {
  const hex = colour.slice(1).toLowerCase();
  return `#${hex.length === 3 ? [...hex].map((digit) => digit + digit).join('') : hex}`;
}

/** The text colour that reads best on `background` (WCAG relative luminance): near-black or white. */
export function readableInk(background: string): string {
  const channel = (offset: number) => {
    const value = Number.parseInt(background.slice(offset, offset + 2), 16) / 255;
    return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  const contrastWithWhite = 1.05 / (luminance + 0.05);
  const contrastWithBlack = (luminance + 0.05) / 0.05;
  return contrastWithWhite >= contrastWithBlack ? '#ffffff' : '#111827';
}

/** CSS custom properties for the page's `style` attribute; built from validated hex colours only. */
export function brandingStyle(branding: Branding): string | undefined {
  const declarations: string[] = [];
  if (branding.background) declarations.push(`--bg:${branding.background}`, `--page-ink:${readableInk(branding.background)}`);
  if (branding.button) declarations.push(`--accent:${branding.button}`, `--accent-ink:${readableInk(branding.button)}`);
  return declarations.length > 0 ? declarations.join(';') : undefined;
}

export function processPaymentHref(link: CheckoutLink, provider: string, amount: string, currency: CurrencyCode): string {
  const query = new URLSearchParams({ address: link.addressIn, amount, provider, email: link.email, currency });
  return `/process-payment.php?${query.toString()}`;
}

/**
 * The page: the providers the customer can choose, grouped by the currency they charge (the
 * order's own currency first, providers made for that currency at its top, then the USD-only
 * providers with the converted amount), then those that cannot take this order.
 */
export function checkoutPageView(link: CheckoutLink, options: readonly ProviderOption[], branding: Branding): CheckoutPageView {
  const dedicated: AvailableProviderView[] = [];
  const anyCurrency: AvailableProviderView[] = [];
  const converted: AvailableProviderView[] = [];
  const unavailable: UnavailableProviderView[] = [];
  const withheld: string[] = [];
  for (const option of options) {
    const { id, displayName: name } = option.provider;
    if (option.status === 'available') {
      const { amount, currency } = option.charge;
      const view: AvailableProviderView = {
        id,
        name,
        href: processPaymentHref(link, id, amount.text, currency),
        amount: amount.text,
        currency,
        ...(option.converted ? { orderAmount: `${link.amount.text} ${link.currency}` } : {}),
      };
      if (option.converted) converted.push(view);
      else if (option.provider.currency === link.currency) dedicated.push(view);
      else anyCurrency.push(view);
    } else if (option.status === 'unavailable') {
      unavailable.push({ id, name, reason: option.reason });
    } else {
      withheld.push(name);
    }
  }
  const order = `${link.amount.text} ${link.currency}`;
  const groups: ProviderGroupView[] = [];
  const own = [...dedicated, ...anyCurrency];
  if (own.length > 0)
    groups.push({ id: 'charged-in-order-currency', currency: link.currency, heading: `Charged in ${link.currency}`, providers: own });
  if (converted.length > 0) {
    groups.push({
      id: 'charged-in-usd',
      currency: 'USD',
      heading: 'Charged in US dollars',
      hint: `These providers take USD only: they charge the ${order} order converted at the current exchange rate, rounded up to the cent.`,
      providers: converted,
    });
  }
  return {
    title: branding.shopName ? `Pay ${order} · ${branding.shopName}` : `Pay ${order}`,
    shopName: branding.shopName,
    logoUrl: branding.logoUrl,
    dark: branding.theme === 'dark',
    style: brandingStyle(branding),
    amount: link.amount.text,
    currency: link.currency,
    available: groups.flatMap((group) => group.providers),
    groups,
    unavailable,
    withheldNote:
      withheld.length > 0
        ? `${listNames(withheld)} ${withheld.length > 1 ? 'take' : 'takes'} USD only, and the exchange rate to convert ${link.currency} is not available right now. Try again in a few minutes to see ${withheld.length > 1 ? 'them' : 'it'} here.`
        : undefined,
  };
}

function listNames(names: readonly string[]): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

export function linkErrorView(problems: LinkProblem[], branding: Branding, heading = 'This payment link is not valid'): CheckoutErrorView {
  return {
    title: heading,
    heading,
    intro:
      'The shop that sent you here built its payment link incorrectly, so no payment can start from it and nothing was charged. Go back to the shop and try again, or contact it with the details below.',
    problems,
    dark: branding.theme === 'dark',
    style: brandingStyle(branding),
  };
}

function unavailableView(branding: Branding): CheckoutErrorView {
  return {
    title: 'Checkout temporarily unavailable',
    heading: 'Checkout temporarily unavailable',
    intro: 'The payment page cannot be shown right now. Nothing was charged. Reload this page in a minute.',
    problems: [],
    dark: branding.theme === 'dark',
    style: brandingStyle(branding),
  };
}

/**
 * The page's Content-Security-Policy with one more image origin (the merchant's logo), every
 * other directive exactly as the host's policy has it.
 */
export function allowImageOrigin(policy: string, origin: string): string {
  const directives = policy
    .split(';')
    .map((directive) => directive.trim())
    .filter(Boolean);
  const index = directives.findIndex((directive) => directive.split(/\s+/)[0]?.toLowerCase() === 'img-src');
  if (index === -1) return [...directives, `img-src 'self' data: ${origin}`].join(';');
  directives[index] = `${directives[index]} ${origin}`;
  return directives.join(';');
}
