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

/**
 * Every rule of Process Payment (spec 4.2), in the order a merchant would fix them: the wallet
 * token first (the most common integration mistake is sending the payout address), then the
 * order itself.
 */
export function parsePaymentRequest(
  query: PaymentRequestQuery,
  context: { keys: SealingKeyRing; rates: RateTable; providers: ProviderCatalogue },
): PaymentRequest {
  const temporaryAddress = openTemporaryAddress(query.address, context.keys);
  const amount = parseFiatAmount(query.amount);
  const provider = resolveProvider(query.provider, context.providers);
  const currency = parseCurrency(query.currency);
  checkProviderOrder(provider, amount, currency, context.rates);
  const email = parseEmail(query.email);
  return { temporaryAddress, amount, provider, currency, email };
}

/** The temporary wallet sealed in `address_in`; a plain 0x address or a token that does not open is refused. */
export function openTemporaryAddress(token: string, keys: SealingKeyRing): EvmAddress {
  if (looksLikeEvmAddress(token)) {
    throw new GatewayError(
      'payout_address_not_accepted',
      'address must be the encrypted address_in returned by Create Wallet (/control/wallet.php), URL-encoded; a plain 0x wallet ' +
        'address is not accepted here',
      'address',
    );
  }
  const address = openAddressIn(token, keys);
  if (!address) {
    throw new GatewayError(
      'invalid_address_in',
      'address is not an address_in issued by this gateway (altered, truncated or from another instance); call Create Wallet again ' +
        'and send its address_in unchanged',
      'address',
    );
  }
  return address;
}
