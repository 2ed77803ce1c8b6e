import { allowedCidrProblem, createAddressPolicy } from '../src/callback-address-policy';

const PUBLIC_ONLY = 'only public unicast addresses are allowed';

describe('createAddressPolicy: where a callback may connect', () => {
  it('answers something that is not an IP address with a reason, not a crash', () => {
    expect(createAddressPolicy([]).refusalReason('shop.io')).toBe('not an IP address');
    expect(createAddressPolicy([]).refusalReason('10.0.0.300')).toBe('not an IP address');
  });

  it('names the range of a refused address', () => {
    const policy = createAddressPolicy([]);
    expect(policy.refusalReason('8.8.8.8')).toBeUndefined();
    expect(policy.refusalReason('2001:4860:4860::8888')).toBeUndefined();
    expect(policy.refusalReason('10.0.0.5')).toBe(`private address, ${PUBLIC_ONLY}`);
    expect(policy.refusalReason('::ffff:127.0.0.1')).toBe(`loopback address, ${PUBLIC_ONLY}`);
    expect(policy.refusalReason('::7f00:1')).toBe(`IPv4-compatible address (deprecated ::a.b.c.d), ${PUBLIC_ONLY}`);
  });

  it('refuses an allowed range that is not a CIDR range, naming it', () => {
    expect(() => createAddressPolicy(['10.0.0.0/8', '10.0.0.5'])).toThrow(new RangeError('allowedCidrs: "10.0.0.5" is not a CIDR range'));
  });

  it('reads an IPv4-mapped allowed range as its IPv4 range', () => {
    for (const cidr of ['::ffff:10.0.0.0/104', '::ffff:a00:0/104']) {
      const policy = createAddressPolicy([cidr]);
      expect(policy.refusalReason('10.1.2.3')).toBeUndefined();
      expect(policy.refusalReason('::ffff:10.1.2.3')).toBeUndefined();
      expect(policy.refusalReason('11.0.0.1')).toBeUndefined(); // public anyway
      expect(policy.refusalReason('192.168.0.1')).toBe(`private address, ${PUBLIC_ONLY}`);
    }
    // The whole IPv4-mapped block is the whole IPv4 space.
    expect(createAddressPolicy(['::ffff:0:0/96']).refusalReason('10.1.2.3')).toBeUndefined();
  });

  it('keeps an IPv6 range wider than the IPv4-mapped block an IPv6 range: it lets no IPv4 address through', () => {
    for (const cidr of ['::ffff:0:0/95', '::ffff:0:0/80']) {
      const policy = createAddressPolicy([cidr]);
      expect(policy.refusalReason('10.1.2.3')).toBe(`private address, ${PUBLIC_ONLY}`);
      expect(policy.refusalReason('127.0.0.1')).toBe(`loopback address, ${PUBLIC_ONLY}`);
    }
  });
});

describe('allowedCidrProblem: what each refusal says', () => {
  it('names loopback and link-local reach', () => {
    for (const cidr of ['127.0.0.0/8', '169.254.169.254/32', '::ffff:169.254.0.0/112', 'fe80::/64']) {
      expect(allowedCidrProblem(cidr, true)).toBe(`${cidr} lets callbacks reach loopback or link-local addresses, refused in production`);
    }
  });

  it('names reach of the host through unspecified and IPv4-compatible addresses', () => {
    for (const cidr of ['0.0.0.0/32', '::/128', '::7f00:1/128']) {
      expect(allowedCidrProblem(cidr, true)).toBe(
        `${cidr} lets callbacks reach the host itself through unspecified (0.0.0.0, ::) or IPv4-compatible (::a.b.c.d) addresses, ` +
          `refused in production`,
      );
    }
  });

  it('counts an IPv6 range that holds IPv4-mapped loopback as reaching loopback', () => {
    // ::fffe:0:0/95 holds ::ffff:127.0.0.1 but none of the IPv6 ranges refused by themselves.
    expect(allowedCidrProblem('::fffe:0:0/95', true)).toMatch(/reach loopback or link-local addresses/);
    expect(allowedCidrProblem('::fffe:0:0/96', true)).toBeUndefined();
  });

  it('names a setting that is not a range, in or out of production', () => {
    for (const production of [true, false])
      expect(allowedCidrProblem('10.1.0.0', production)).toBe('"10.1.0.0" is not a CIDR range such as 10.1.0.0/16');
  });
});
