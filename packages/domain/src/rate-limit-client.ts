import ipaddr from 'ipaddr.js';

/** How many leading bits of an IPv6 address name one client: a /64 is what one host or one home is given. */
export const IPV6_CLIENT_PREFIX_BITS = 64;

/**
 * The client a rate limit counts a request against, from the address the request came from (as
 * the trusted proxies resolve it). An IPv4 address is one client. An IPv6 client is its /64: the
 * host picks any address of its /64 for itself (privacy addresses, or simply a new one per
 * request), so counting each /128 would let one host multiply its limit by 2^64. An IPv4-mapped
 * IPv6 address (::ffff:203.0.113.9, as a dual-stack socket reports IPv4 peers) is its IPv4 address.
 * Anything that does not parse as an address is counted as itself.
 */
export function rateLimitClientOf(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4') return ip.toString();
  const network = ipaddr.IPv6.networkAddressFromCIDR(`${ip.toString()}/${IPV6_CLIENT_PREFIX_BITS}`);
  return `${network.toString()}/${IPV6_CLIENT_PREFIX_BITS}`;
}
