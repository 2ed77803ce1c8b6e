import type { CheckoutLink, CurrencyCode, LinkProblem, ProviderOption } from '@gateway/domain';
import type { CheckoutOffer } from '../../services/hosted-checkout-service';
import { brandingStyle, type Branding } from './branding';

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

function processPaymentHref(link: CheckoutLink, provider: string, amount: string, currency: CurrencyCode): string {
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
        ? `${listNames(withheld)} ${withheld.length > 1 ? 'take' : 'takes'} USD only, and the exchange rate to convert ` +
          `${link.currency} is not available right now. Try again in a few minutes to see ${withheld.length > 1 ? 'them' : 'it'} here.`
        : undefined,
  };
}

const LINK_REFUSED =
  'The shop that sent you here built its payment link incorrectly, so no payment can start from it and nothing was charged. ' +
  'Go back to the shop and try again, or contact it with the details below.';

function listNames(names: readonly string[]): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

const ERROR_PAGES = {
  invalid_link: {
    heading: 'This payment link is not valid',
    intro: LINK_REFUSED,
  },
  unknown_wallet: {
    heading: 'This payment link points to an unknown wallet',
    intro: LINK_REFUSED,
  },
  wallet_lookup_failed: {
    heading: 'Checkout temporarily unavailable',
    intro: 'The payment page cannot be shown right now. Nothing was charged. Reload this page in a minute.',
  },
} as const;

/** The page for a link that shows no providers: what is wrong with it, or that the page cannot be shown right now. */
export function checkoutErrorView(error: Extract<CheckoutOffer, { kind: 'error' }>, branding: Branding): CheckoutErrorView {
  const { heading, intro } = ERROR_PAGES[error.reason];
  return { title: heading, heading, intro, problems: error.problems, dark: branding.theme === 'dark', style: brandingStyle(branding) };
}
