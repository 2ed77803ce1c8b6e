import { getAddress, isAddress, type Address } from 'viem';
import {
  parseCurrency,
  parseFiatAmount,
  quoteOnRamp,
  type CurrencyCode,
  type FiatAmount,
  type OnRampQuote,
  type ProviderTerms,
  type RateTable,
  isUuid,
} from '@gateway/domain';
import { knownProviderTerms, SANDBOX_SIGNED_FIELDS, verifySandboxLink, type SandboxLinkFields } from '@gateway/providers';

/** One checkout, as the gateway signed it, with the USDC it delivers. */
export interface CheckoutOrder {
  /** The gateway payment id; the sandbox's order id too, so an order is paid at most once. */
  paymentId: string;
  provider: ProviderTerms;
  walletAddress: Address;
  amount: FiatAmount;
  currency: CurrencyCode;
  email: string;
  returnUrl: string;
  quote: OnRampQuote;
  /** The link's fields exactly as signed, plus `sig`: the form carries them back unchanged. */
  signed: ReadonlyArray<readonly [string, string]>;
}

export type CheckoutLinkReading = { ok: true; order: CheckoutOrder } | { ok: false; problem: 'invalid' | 'expired' };

export interface CheckoutLinkOptions {
  secret: Buffer;
  rates: RateTable;
  feeBps: number;
}

/**
 * Reads a checkout link (the query of GET /checkout, or the hidden fields of the card form).
 * Only what the gateway signed is trusted; a signed link that still does not make sense (it
 * cannot, unless the gateway and the sandbox disagree on rates or providers) is invalid too.
 */
export function readCheckoutLink(params: Readonly<Record<string, string | undefined>>, options: CheckoutLinkOptions): CheckoutLinkReading {
  const query = new URLSearchParams();
  for (const name of [...SANDBOX_SIGNED_FIELDS, 'sig']) {
    const value = params[name];
    if (value !== undefined) query.set(name, value);
  }
  const verdict = verifySandboxLink(query, options.secret);
  if (!verdict.ok) return { ok: false, problem: verdict.reason === 'expired' ? 'expired' : 'invalid' };
  const order = orderFrom(verdict.fields, query.get('sig') ?? '', options);
  return order ? { ok: true, order } : { ok: false, problem: 'invalid' };
}

function orderFrom(fields: SandboxLinkFields, sig: string, options: CheckoutLinkOptions): CheckoutOrder | undefined {
  const provider = knownProviderTerms(fields.provider);
  if (!provider || !isUuid(fields.payment) || !isAddress(fields.address, { strict: false }) || !isWebUrl(fields.return_url))
    return undefined;
  try {
    const amount = parseFiatAmount(fields.amount);
    const currency = parseCurrency(fields.currency);
    return {
      paymentId: fields.payment.toLowerCase(),
      provider,
      walletAddress: getAddress(fields.address),
      amount,
      currency,
      email: fields.email,
      returnUrl: fields.return_url,
      quote: quoteOnRamp(amount, currency, options.rates, options.feeBps),
      signed: [...SANDBOX_SIGNED_FIELDS.map((name) => [name, fields[name]] as const), ['sig', sig] as const],
    };
  } catch {
    // The domain parsers throw on what they refuse; here each refusal means "not a usable link".
    return undefined;
  }
}

// The return URL becomes a link and a redirect: only a web address may, even when signed.
function isWebUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}
