import { openAddressIn, type SealingKeyRing } from './address-in-codec';
import { parseCurrency, type CurrencyCode } from './currencies';
import { parseEmail } from './email';
import { GatewayError } from './errors';
import { looksLikeEvmAddress, type EvmAddress } from './evm-address';
import { parseFiatAmount, type FiatAmount } from './money';
import { checkProviderOrder, resolveProvider, type ProviderCatalogue, type ProviderTerms, type RateTable } from './provider-terms';

export interface PaymentRequestQuery {
  address: string;
  amount: string;
  provider: string;
  email: string;
  currency: string;
}

export interface PaymentRequest {
  temporaryAddress: EvmAddress;
  amount: FiatAmount;
  provider: ProviderTerms;
  currency: CurrencyCode;
  email: string;
}

/** What each order parameter of a payment link holds once read (Process Payment's and the hosted checkout's). */
interface PaymentLinkValues {
  address: EvmAddress;
  amount: FiatAmount;
  currency: CurrencyCode;
  email: string;
}

type PaymentLinkParam = keyof PaymentLinkValues;

const PAYMENT_LINK_RULES: { [P in PaymentLinkParam]: (value: string, keys: SealingKeyRing) => PaymentLinkValues[P] } = {
  address: (token, keys) => openTemporaryAddress(token, keys),
  amount: (amount) => parseFiatAmount(amount),
  currency: (currency) => parseCurrency(currency),
  email: (email) => parseEmail(email),
};

/**
 * One order parameter of a payment link, read by its one rule, exactly as given (nothing trimmed):
 * Process Payment and the hosted checkout read every link through here. Throws the GatewayError
 * that names the parameter.
 */
function readPaymentLinkParam<P extends PaymentLinkParam>(param: P, value: string, keys: SealingKeyRing): PaymentLinkValues[P] {
  return PAYMENT_LINK_RULES[param](value, keys);
}

/**
 * Every rule of Process Payment (spec 4.2), in the order a merchant would fix them: the wallet
 * token first (the most common integration mistake is sending the payout address), then the
 * order itself.
 */
export function parsePaymentRequest(
  query: PaymentRequestQuery,
  context: { keys: SealingKeyRing; rates: RateTable; providers: ProviderCatalogue },
): PaymentRequest {
  const temporaryAddress = readPaymentLinkParam('address', query.address, context.keys);
  const amount = readPaymentLinkParam('amount', query.amount, context.keys);
  const provider = resolveProvider(query.provider, context.providers);
  const currency = readPaymentLinkParam('currency', query.currency, context.keys);
  checkProviderOrder(provider, amount, currency, context.rates);
  const email = readPaymentLinkParam('email', query.email, context.keys);
  return { temporaryAddress, amount, provider, currency, email };
}

/** A checkout link whose every order parameter is valid (the wallet not yet looked up). */
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

const MISSING_PARAM_HINTS: { [P in PaymentLinkParam]: string } = {
  address: 'add address=<the address_in returned by Create Wallet>, URL-encoded',
  amount: 'add amount=<the order total>, e.g. amount=49.99',
  email: "add email=<the customer's e-mail address>, URL-encoded",
  currency: 'add currency=<the ISO 4217 code of the order>, e.g. currency=USD',
};

/**
 * The hosted checkout's link as it arrived in a browser (a parameter may be missing, repeated or
 * anything at all): each parameter read as Process Payment reads it, and every problem reported
 * at once so a merchant fixes the link in one go.
 */
export function parseCheckoutLink(
  query: Readonly<Record<string, unknown>>,
  keys: SealingKeyRing,
): { link: CheckoutLink } | { problems: LinkProblem[] } {
  const problems: LinkProblem[] = [];
  const read = <P extends PaymentLinkParam>(param: P): PaymentLinkValues[P] | undefined => {
    const value = query[param];
    if (value === undefined || value === '') {
      problems.push({ param, message: `${param} is missing: ${MISSING_PARAM_HINTS[param]}` });
      return undefined;
    }
    if (typeof value !== 'string') {
      problems.push({ param, message: `${param} is given more than once; send it once` });
      return undefined;
    }
    try {
      return readPaymentLinkParam(param, value, keys);
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      problems.push({ param, message: error.message });
      return undefined;
    }
  };
  const [temporaryAddress, amount, currency, email] = [read('address'), read('amount'), read('currency'), read('email')];
  if (problems.length > 0 || !temporaryAddress || !amount || !currency || !email) return { problems };
  return { link: { addressIn: String(query.address), temporaryAddress, amount, currency, email } };
}

/** The temporary wallet sealed in `address_in`; a plain 0x address or a token that does not open is refused. */
export function openTemporaryAddress(token: string, keys: SealingKeyRing): EvmAddress {
  if (looksLikeEvmAddress(token)) {
    throw new GatewayError(
      'payout_address_not_accepted',
      'address must be the encrypted address_in returned by Create Wallet (/control/wallet.php), URL-encoded; ' +
        'a plain 0x wallet address is not accepted here',
      'address',
    );
  }
  const address = openAddressIn(token, keys);
  if (!address) {
    throw new GatewayError(
      'invalid_address_in',
      'address is not an address_in issued by this gateway (altered, truncated or from another instance); ' +
        'call Create Wallet again and send its address_in unchanged',
      'address',
    );
  }
  return address;
}

/** An address_in that opens but belongs to no wallet of this gateway: Process Payment's answer and the hosted checkout's. */
export function unknownWalletError(): GatewayError {
  return new GatewayError('unknown_wallet', 'address opens, but no wallet of this gateway has it; call Create Wallet again', 'address');
}
