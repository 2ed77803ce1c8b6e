import { GatewayError } from './errors';
import { parsePayoutAddress, type EvmAddress } from './evm-address';

/**
 * Pinned addresses: a gateway run for the operator's own shops lists the payout addresses it pays
 * (PAYOUT_ADDRESSES) and, for the affiliate endpoints, the affiliates (AFFILIATE_ADDRESSES), and
 * refuses every other. Nobody else's payout address can then be registered, so nobody can register
 * a shop's callback URL (one already used, or one guessed for a future order) with a payout of
 * their own: the only defence against that in open mode is the merchant's address_out check.
 */
export interface AddressPin {
  /** The setting that pins them, named in the refusal. */
  setting: 'PAYOUT_ADDRESSES' | 'AFFILIATE_ADDRESSES';
  /** Lower-case hex. */
  addresses: ReadonlySet<string>;
}

/**
 * A comma-separated list of addresses, each checked as a payout address is (EIP-55 when mixed
 * case, not the zero address, not a token contract); undefined for an empty setting (not pinned).
 * What is wrong with an entry goes to `problems`, prefixed with the setting's name.
 */
export function parseAddressPin(
  value: string,
  setting: AddressPin['setting'],
  rules: { tokenAddress: EvmAddress },
  problems: string[],
): AddressPin | undefined {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) return undefined;
  const addresses = new Set<string>();
  for (const entry of entries) {
    try {
      // The entry names itself in the message (an address is no secret; a long one is cut short).
      addresses.add(parsePayoutAddress(entry, rules, entry.length > 42 ? `${entry.slice(0, 42)}…` : entry).toLowerCase());
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      problems.push(`${setting}: ${error.message}`);
    }
  }
  return { setting, addresses };
}

/** The 403 for an address a pin leaves out (param `address` or `affiliate`), or undefined when it may be paid. */
export function pinnedAddressRefusal(
  address: string,
  pin: AddressPin | undefined,
  param: 'address' | 'affiliate',
): GatewayError | undefined {
  if (pin === undefined || pin.addresses.has(address.toLowerCase())) return undefined;
  return new GatewayError(
    'address_not_allowed',
    `${param} is not an address this gateway pays: it is run for its operator's own shops and pays only the addresses in ${pin.setting}`,
    param,
  );
}

/** The 403 of the affiliate endpoints when AFFILIATE_WALLETS=off. */
export function affiliateWalletsDisabled(): GatewayError {
  return new GatewayError(
    'affiliate_disabled',
    'affiliate wallets are turned off on this gateway (AFFILIATE_WALLETS=off); use wallet.php',
    'affiliate',
  );
}
