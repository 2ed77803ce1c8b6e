import ipaddr from 'ipaddr.js';

/**
 * Which addresses a merchant callback may be sent to: one rule, used by Create Wallet (on a callback
 * whose host is an IP literal) and by the callback-worker (on the address the socket is about to
 * use, after DNS). Pure code, no I/O, so it lives here beside the other rules.
 */
export interface AddressPolicy {
  /** Why the gateway must not connect to this address, or undefined when it may. */
  refusalReason(address: string): string | undefined;
}

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** What the local stack exempts: its demo merchant listens on loopback. */
export const LOOPBACK_CIDRS: readonly string[] = ['127.0.0.0/8', '::1/128'];

// ::/96 minus :: and ::1: "IPv4-compatible" addresses (RFC 4291 2.5.5.1, deprecated). ipaddr.js calls
// them unicast, yet ::7f00:1 is 127.0.0.1 to a stack that still maps them; no merchant uses one.
const IPV4_COMPATIBLE: Cidr = [ipaddr.IPv6.parse('::'), 96];

/**
 * Only public unicast addresses, plus whatever `allowedCidrs` lets through (the local stack calls a
 * merchant stub on 127.0.0.1). Everything else is internal: loopback, unspecified (0.0.0.0 and ::
 * reach the host's own listeners), RFC 1918, ULA, link-local (cloud metadata at 169.254.169.254),
 * CGNAT, multicast, reserved and documentation ranges, IPv4-compatible and IPv4-embedding IPv6
 * (NAT64, 6to4, Teredo). IPv4-mapped IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address it is,
 * and an IPv4-mapped allowed range as its IPv4 range.
 */
export function createAddressPolicy(allowedCidrs: readonly string[]): AddressPolicy {
  const allowed = allowedCidrs.map((cidr) => {
    if (!ipaddr.isValidCIDR(cidr)) throw new RangeError(`allowedCidrs: "${cidr}" is not a CIDR range`);
    return normalizeCidr(ipaddr.parseCIDR(cidr));
  });
  return {
    refusalReason(address) {
      if (!ipaddr.isValid(address)) return 'not an IP address';
      // process() unwraps IPv4-mapped IPv6 (::ffff:127.0.0.1) so it meets the IPv4 rules.
      const ip = ipaddr.process(address);
      if (allowed.some(([network, bits]) => network.kind() === ip.kind() && ip.match(network, bits))) {
        return undefined;
      }
      const range = ip.range();
      if (range === 'unicast' && ip.kind() === 'ipv6' && ip.match(IPV4_COMPATIBLE)) {
        return 'IPv4-compatible address (deprecated ::a.b.c.d), only public unicast addresses are allowed';
      }
      return range === 'unicast' ? undefined : `${range} address, only public unicast addresses are allowed`;
    },
  };
}

// Ranges no production allow-list may reach, as [range, what it reaches]. An allowed range that
// overlaps one of them (contains it, or lies inside it) is refused.
const NEVER_ALLOWED_IN_PRODUCTION: ReadonlyArray<[Cidr, 'loopback or link-local' | 'unspecified or IPv4-compatible']> = [
  [ipaddr.parseCIDR('127.0.0.0/8'), 'loopback or link-local'],
  [ipaddr.parseCIDR('::1/128'), 'loopback or link-local'],
  [ipaddr.parseCIDR('169.254.0.0/16'), 'loopback or link-local'],
  [ipaddr.parseCIDR('fe80::/10'), 'loopback or link-local'],
  [ipaddr.parseCIDR('0.0.0.0/8'), 'unspecified or IPv4-compatible'],
  [ipaddr.parseCIDR('::/128'), 'unspecified or IPv4-compatible'],
  [IPV4_COMPATIBLE, 'unspecified or IPv4-compatible'],
];

/**
 * What is wrong with one entry of an allowed-ranges setting (CALLBACK_ALLOWED_CIDRS), or undefined.
 * In production no range may reach the host itself or the cloud metadata service: loopback,
 * link-local, the unspecified address (0.0.0.0 and :: connect to the host's own listeners) and
 * IPv4-compatible IPv6 (::7f00:1), in any spelling (an IPv4-mapped range counts as its IPv4 range).
 */
export function allowedCidrProblem(cidr: string, production: boolean): string | undefined {
  if (!ipaddr.isValidCIDR(cidr)) return `"${cidr}" is not a CIDR range such as 10.1.0.0/16`;
  if (!production) return undefined;
  const range = normalizeCidr(ipaddr.parseCIDR(cidr));
  const reached = NEVER_ALLOWED_IN_PRODUCTION.find(([refused]) => overlaps(range, refused));
  if (!reached) return undefined;
  return reached[1] === 'loopback or link-local'
    ? `${cidr} lets callbacks reach loopback or link-local addresses, refused in production`
    : `${cidr} lets callbacks reach the host itself through unspecified (0.0.0.0, ::) or IPv4-compatible (::a.b.c.d) addresses, ` +
        `refused in production`;
}

/** An IPv4-mapped IPv6 range (::ffff:10.0.0.0/104) as the IPv4 range it is (10.0.0.0/8). */
function normalizeCidr([network, bits]: Cidr): Cidr {
  if (network.kind() === 'ipv6' && bits >= 96 && (network as ipaddr.IPv6).isIPv4MappedAddress()) {
    return [(network as ipaddr.IPv6).toIPv4Address(), bits - 96];
  }
  return [network, bits];
}

function overlaps([a, aBits]: Cidr, [b, bBits]: Cidr): boolean {
  if (a.kind() !== b.kind()) {
    // A range wider than ::ffff:0:0/96 (e.g. ::/0) also holds every IPv4-mapped address.
    if (a.kind() === 'ipv6' && aBits <= 96) return ipaddr.IPv6.parse(`::ffff:${b.toString()}`).match(a, aBits);
    return false;
  }
  return a.match(b, bBits) || b.match(a, aBits);
}
