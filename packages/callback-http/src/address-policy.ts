/**
 * The rule itself lives in @gateway/domain (callback-address-policy.ts): Create Wallet refuses an
 * IP-literal callback with the same code the worker's connector applies to every address it is
 * about to connect to, so a wallet is never registered for a callback that can never be sent.
 */
export { createAddressPolicy, type AddressPolicy } from '@gateway/domain';

export class SsrfRefusedError extends Error {
  readonly code = 'ERR_CALLBACK_SSRF_REFUSED';

  constructor(
    readonly hostname: string,
    readonly address: string,
    readonly reason: string,
  ) {
    const resolvedFrom = hostname === address ? '' : ` (resolved from ${hostname})`;
    super(`refused to connect to ${address}${resolvedFrom}: ${reason}`);
    this.name = 'SsrfRefusedError';
  }
}
