import { lookup as dnsLookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { buildConnector } from 'undici';
import { SsrfRefusedError, type AddressPolicy } from './address-policy';

/**
 * undici's connector with the address policy applied to the address the socket is about to use:
 * inside the DNS lookup the socket itself performs, so a name cannot resolve to a public address for
 * a check and to an internal one for the connection (DNS rebinding).
 */
export function createGuardedConnector({
  connectTimeoutMs,
  policy,
  lookup = dnsLookup,
}: {
  connectTimeoutMs: number;
  policy: AddressPolicy;
  lookup?: LookupFunction;
}): buildConnector.connector {
  const connect = buildConnector({ timeout: connectTimeoutMs, lookup: guardLookup(lookup, policy) });
  return (options, callback) => {
    // net.connect skips the lookup for IP literals, so they are checked here, before any socket exists.
    if (isIP(options.hostname) !== 0) {
      const reason = policy.refusalReason(options.hostname);
      if (reason !== undefined) {
        callback(new SsrfRefusedError(options.hostname, options.hostname, reason), null);
        return;
      }
    }
    connect(options, callback);
  };
}

/**
 * The merchant's name did not resolve (NXDOMAIN, SERVFAIL, a resolver timeout, no address…): a
 * network error like any other, retried, never a reason to give the callback up. `dnsCode` is the
 * resolver's own code (ENOTFOUND, EAI_AGAIN, ESERVFAIL, …).
 */
export class DnsLookupError extends Error {
  readonly code = 'ERR_CALLBACK_DNS_FAILED';

  constructor(
    readonly hostname: string,
    readonly dnsCode: string,
  ) {
    super(`DNS lookup of ${hostname} failed (${dnsCode})`);
    this.name = 'DnsLookupError';
  }
}

/**
 * A name is refused as a whole when any of its addresses is refused: a merchant's name has no
 * business pointing inside our network, and filtering would make the outcome depend on which
 * address the socket happens to try first. Only a name that resolves into a refused range fails for
 * good; one that does not resolve at all fails with a DnsLookupError, which is retried.
 */
function guardLookup(lookup: LookupFunction, policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, options, (error, address, family) => {
      if (error) {
        const code = typeof error.code === 'string' && error.code !== '' ? error.code : 'lookup failed';
        callback(new DnsLookupError(hostname, code), address, family);
        return;
      }
      const addresses = typeof address === 'string' ? [address] : address.map((entry) => entry.address);
      if (addresses.length === 0 || addresses.includes('')) {
        callback(new DnsLookupError(hostname, 'ENODATA'), address, family);
        return;
      }
      for (const candidate of addresses) {
        const reason = policy.refusalReason(candidate);
        if (reason !== undefined) {
          callback(new SsrfRefusedError(hostname, candidate, reason), address, family);
          return;
        }
      }
      callback(null, address, family);
    });
  };
}
