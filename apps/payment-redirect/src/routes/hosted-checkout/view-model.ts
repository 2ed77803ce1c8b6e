import type { CheckoutLink, CurrencyCode, LinkProblem, RankedRow } from '@gateway/domain';
import type { CheckoutOffer } from '../../services/hosted-checkout-service';
import { providerRowView, type ProviderRowView } from '../shared/provider-row-words';
import { brandingStyle, type Branding } from './branding';

/** A provider the customer can choose: a plain link to Process Payment with the amount it charges. */
export interface AvailableProviderView extends ProviderRowView {
  href: string;
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
  /** The first rows, shown at once (3 to 5, rankCheckoutOptions). */
  recommended: AvailableProviderView[];
  /** The others, behind "More providers (N)". */
  more: AvailableProviderView[];
  /** Said once when a row charges the order converted to USD. */
  convertedNote?: string;
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
 * The page: the providers the customer can choose in the ranking's order (the recommended ones,
 * then the rest behind a disclosure), each saying what it costs and brings, then those that cannot
 * take this order and why.
 */
export function checkoutPageView(offer: Extract<CheckoutOffer, { kind: 'offer' }>, branding: Branding): CheckoutPageView {
  const { link, options, ranking, prices, country } = offer;
  const order = `${link.amount.text} ${link.currency}`;
  const row = (ranked: RankedRow): AvailableProviderView => {
    const { provider, charge } = ranked.option;
    return {
      ...providerRowView(ranked, prices.prices.get(provider.id), order, country),
      // The link carries the charge; a quote's fees are the provider's to add on its own page.
      href: processPaymentHref(link, provider.id, charge.amount.text, charge.currency),
    };
  };
  const unavailable: UnavailableProviderView[] = [];
  const withheld: string[] = [];
  for (const option of options) {
    const { id, displayName: name } = option.provider;
    if (option.status === 'unavailable') unavailable.push({ id, name, reason: option.reason });
    else if (option.status === 'withheld') withheld.push(name);
  }
  const converted = [...ranking.recommended, ...ranking.more]
    .filter((ranked) => ranked.option.converted)
    .map((ranked) => ranked.option.provider.displayName);
  return {
    title: branding.shopName ? `Pay ${order} · ${branding.shopName}` : `Pay ${order}`,
    shopName: branding.shopName,
    logoUrl: branding.logoUrl,
    dark: branding.theme === 'dark',
    style: brandingStyle(branding),
    amount: link.amount.text,
    currency: link.currency,
    recommended: ranking.recommended.map(row),
    more: ranking.more.map(row),
    convertedNote:
      converted.length > 0
        ? `${listNames(converted)} ${converted.length > 1 ? 'take' : 'takes'} US dollars only: the ${order} order converted at the ` +
          'current exchange rate, rounded up to the cent.'
        : undefined,
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
