import { createAddressPolicy } from '../src/address-policy';

describe('the callback address policy (one rule for Create Wallet and the callback-worker)', () => {
  const production = createAddressPolicy([]);

  it.each([
    ['127.0.0.1', /loopback/],
    ['::1', /loopback/],
    ['::ffff:127.0.0.1', /loopback/],
    ['::ffff:7f00:1', /loopback/],
    ['::7f00:1', /IPv4-compatible/],
    ['::a00:5', /IPv4-compatible/],
    ['::0.0.0.2', /IPv4-compatible|unspecified/],
    ['0.0.0.0', /unspecified/],
    ['::', /unspecified/],
    ['::ffff:0.0.0.0', /unspecified/],
    ['169.254.169.254', /linkLocal/],
    ['fe80::1', /linkLocal/],
    ['10.0.0.5', /private/],
    ['fd00::1', /uniqueLocal/],
    ['64:ff9b::7f00:1', /rfc6052/],
    ['2002:7f00:1::', /6to4/],
  ])('refuses %s', (address, reason) => {
    expect(production.refusalReason(address)).toMatch(reason);
  });

  it('lets public unicast addresses through', () => {
    for (const address of ['93.184.216.34', '2606:4700:4700::1111', '::ffff:93.184.216.34']) {
      expect([address, production.refusalReason(address)]).toEqual([address, undefined]);
    }
  });

  it('exempts allowed ranges, an IPv4-mapped range meaning its IPv4 range', () => {
    const policy = createAddressPolicy(['127.0.0.0/8', '::ffff:10.30.0.0/112', '::7f00:1/128']);
    expect(policy.refusalReason('127.0.0.1')).toBeUndefined();
    expect(policy.refusalReason('::ffff:127.0.0.1')).toBeUndefined();
    expect(policy.refusalReason('10.30.0.5')).toBeUndefined();
    expect(policy.refusalReason('::ffff:10.30.0.5')).toBeUndefined();
    expect(policy.refusalReason('::7f00:1')).toBeUndefined();
    expect(policy.refusalReason('10.31.0.5')).toMatch(/private/);
  });
});
