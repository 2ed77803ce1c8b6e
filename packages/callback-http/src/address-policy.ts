import ipaddr from 'ipaddr.js';

export interface AddressPolicy {
  /** Why the gateway must not connect to this address, or undefined when it may. */
  refusalReason(address: string): string | undefined;
}

/**
 * Only public unicast addresses, plus whatever `allowedCidrs` lets through (the local stack calls a
 * merchant stub on 127.0.0.1). Everything else is internal: loopback, RFC 1918, ULA, link-local
 * (cloud metadata at 169.254.169.254), CGNAT, multicast, reserved and documentation ranges.
 */
export function createAddressPolicy(allowedCidrs: readonly string[]): AddressPolicy {
  const allowed = allowedCidrs.map((cidr) => {
    if (!ipaddr.isValidCIDR(cidr)) throw new RangeError(`allowedCidrs: "${cidr}" is not a CIDR range`);
    return ipaddr.parseCIDR(cidr);
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
      return range === 'unicast' ? undefined : `${range} address, only public unicast addresses are allowed`;
    },
  };
}

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
