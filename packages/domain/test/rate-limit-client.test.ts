import { rateLimitClientOf } from '../src/rate-limit-client';

describe('rateLimitClientOf (who a rate limit counts)', () => {
  it.each([
    ['203.0.113.9', '203.0.113.9'],
    ['::ffff:203.0.113.9', '203.0.113.9'],
    ['::ffff:cb00:7109', '203.0.113.9'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:0000:0000:0000:0009', '2001:db8:1:2::/64'],
    ['2001:db8:1:3::', '2001:db8:1:3::/64'],
    ['::1', '::/64'],
    ['not an address', 'not an address'],
  ])('%s counts as %s', (address, client) => {
    expect(rateLimitClientOf(address)).toBe(client);
  });

  it('keeps neighbouring IPv4 addresses and neighbouring /64s apart', () => {
    expect(rateLimitClientOf('203.0.113.10')).not.toBe(rateLimitClientOf('203.0.113.9'));
    expect(rateLimitClientOf('2001:db8:1:1:ffff:ffff:ffff:ffff')).not.toBe(rateLimitClientOf('2001:db8:1:2::'));
  });
});
