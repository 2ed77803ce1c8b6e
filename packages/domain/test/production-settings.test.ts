import {
  placeholderSettingRefusal,
  MIN_PRODUCTION_SECRET_CHARACTERS,
  POLYGON_CHAIN_ID,
  POLYGON_TESTNET_CHAIN_ID,
  productionChainRefusal,
  productionPublicUrlRefusal,
  publicUrlHostName,
  resolvedPublicHostRefusal,
  productionRedisUrlRefusal,
  shortSecretRefusal,
} from '../src';

describe('productionChainRefusal', () => {
  it('takes Polygon PoS on mainnet and Polygon Amoy on testnet, nothing else', () => {
    expect([POLYGON_CHAIN_ID, POLYGON_TESTNET_CHAIN_ID]).toEqual([137, 80_002]);
    expect(productionChainRefusal(137, 'mainnet')).toBeUndefined();
    expect(productionChainRefusal(80_002, 'testnet')).toBeUndefined();
    expect(productionChainRefusal(80_002, 'mainnet')).toBe(
      '80002 is not Polygon PoS (137); a test network (Polygon Amoy, 80002) needs CHAIN_NETWORK=testnet, a local chain is never production',
    );
    expect(productionChainRefusal(137, 'testnet')).toBe(
      '137 is not Polygon Amoy (80002), the only test network production runs on with CHAIN_NETWORK=testnet',
    );
    for (const chainId of [1, 136, 138, 31_337, 80_001, 80_003]) {
      expect(productionChainRefusal(chainId, 'mainnet')).toMatch(/^\d+ is not Polygon PoS/);
      expect(productionChainRefusal(chainId, 'testnet')).toMatch(/^\d+ is not Polygon Amoy/);
    }
  });
});

describe('productionPublicUrlRefusal', () => {
  it.each([
    'https://pay.example.com',
    'https://pay.example.com:8443/',
    'https://8.8.8.8',
    'https://[2a00:1450:4001::1]',
    'https://localhostname.example',
    'https://my-localhost.example',
  ])('takes %s', (url) => {
    expect(productionPublicUrlRefusal(url)).toBeUndefined();
  });

  it.each([
    ['not a url', 'not a URL'],
    ['http://pay.example.com', 'must be https in production (got http:)'],
    ['ftp://pay.example.com', 'must be https in production (got ftp:)'],
    ['https://localhost', 'localhost is a loopback name'],
    ['https://LOCALHOST.', 'localhost is a loopback name'],
    ['https://app.localhost', 'app.localhost is a loopback name'],
    ['https://[::ffff:7f00:1]', 'loopback address, only public unicast addresses are allowed'],
    ['https://2130706433', 'loopback address, only public unicast addresses are allowed'],
    ['https://[::1]', 'loopback address, only public unicast addresses are allowed'],
    ['https://[::7f00:1]', 'IPv4-compatible address (deprecated ::a.b.c.d), only public unicast addresses are allowed'],
    ['https://10.1.2.3', 'private address, only public unicast addresses are allowed'],
    ['https://169.254.169.254', 'linkLocal address, only public unicast addresses are allowed'],
  ])('refuses %s: %s', (url, reason) => {
    expect(productionPublicUrlRefusal(url)).toBe(reason);
  });
});

describe('publicUrlHostName', () => {
  it.each([
    ['https://pay.example.com', 'pay.example.com'],
    ['https://Pay.Example.com.:8443/', 'pay.example.com'],
    ['https://127.0.0.1.nip.io', '127.0.0.1.nip.io'],
  ])('%s names %s, to be resolved', (url, host) => {
    expect(publicUrlHostName(url)).toBe(host);
  });
  it.each(['https://8.8.8.8', 'https://[2a00:1450:4001::1]', 'https://2130706433', 'not a url'])('%s has no name to resolve', (url) => {
    expect(publicUrlHostName(url)).toBeUndefined();
  });
});

describe('resolvedPublicHostRefusal', () => {
  it('takes a name whose every address is public', () => {
    expect(resolvedPublicHostRefusal('pay.example.com', ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'])).toBeUndefined();
  });
  it.each([
    [['127.0.0.1'], '127.0.0.1.nip.io resolves to 127.0.0.1: loopback address, only public unicast addresses are allowed'],
    [['::1'], '127.0.0.1.nip.io resolves to ::1: loopback address, only public unicast addresses are allowed'],
    [['93.184.215.14', '10.0.0.7'], '127.0.0.1.nip.io resolves to 10.0.0.7: private address, only public unicast addresses are allowed'],
    [
      ['::ffff:169.254.169.254'],
      '127.0.0.1.nip.io resolves to ::ffff:169.254.169.254: linkLocal address, only public unicast addresses are allowed',
    ],
    [[], '127.0.0.1.nip.io resolves to no address'],
  ])('refuses a name that resolves to %j', (addresses, reason) => {
    expect(resolvedPublicHostRefusal('127.0.0.1.nip.io', addresses)).toBe(reason);
  });
});

describe('productionRedisUrlRefusal', () => {
  it("takes a URL naming the app's own user, and refuses none, the default user and a non-URL", () => {
    expect(productionRedisUrlRefusal('rediss://gw-wallet-control:secret@redis.internal:6380')).toBeUndefined();
    expect(productionRedisUrlRefusal('redis://gw%3Aeu-chain-watcher:secret@10.0.0.5')).toBeUndefined();
    for (const url of ['redis://127.0.0.1:6379', 'rediss://:secret@redis.internal', 'redis://default:secret@redis.internal'])
      expect([url, productionRedisUrlRefusal(url)]).toEqual([url, expect.stringMatching(/own Redis user .*never the default user/)]);
    expect(productionRedisUrlRefusal('not a url')).toBe('not a URL');
  });
});

describe('shortSecretRefusal', () => {
  it(`takes ${MIN_PRODUCTION_SECRET_CHARACTERS} characters or more, and says how many a shorter one has, never what`, () => {
    expect(MIN_PRODUCTION_SECRET_CHARACTERS).toBe(32);
    expect(shortSecretRefusal('k'.repeat(32))).toBeUndefined();
    expect(shortSecretRefusal('k'.repeat(64))).toBeUndefined();
    const refusal = shortSecretRefusal('secret31'.repeat(4).slice(0, 31));
    expect(refusal).toBe(
      'at least 32 characters in production (this one has 31): a short key lets anyone who tries enough forge what it signs',
    );
    expect(refusal).not.toContain('secret31');
    expect(shortSecretRefusal('')).toMatch(/this one has 0/);
  });
});

describe('placeholderSettingRefusal', () => {
  it("refuses any value still holding the templates' REPLACE-ME, wherever it stands in it", () => {
    for (const value of [
      'REPLACE-ME',
      'postgres://gateway_wallet_control_login:REPLACE-ME@db:5432/gateway',
      'https://rpc.example/REPLACE-ME',
    ])
      expect(placeholderSettingRefusal(value)).toBe("still holds the template's REPLACE-ME; give the site's own value");
    for (const value of ['', 'replace-me-not', 'postgres://gateway_wallet_control_login:9f3c@db:5432/gateway'])
      expect(placeholderSettingRefusal(value)).toBeUndefined();
  });
});
