import type { FastifyInstance } from 'fastify';
import { mnemonicToAccount } from 'viem/accounts';
import { getAddress } from 'viem';
import { openAddressIn } from '@gateway/domain';
import { WalletRepository } from '@gateway/db/wallet-control';
import { TemporaryAddressDeriver, xpubFromMnemonic, PUBLIC_TEST_MNEMONIC } from '@gateway/chain';
import { AddressSupply } from '../../src/services/address-supply';
import type { WalletControlConfig } from '../../src/config';
import { walletControlFixture } from '../support/wallet-control-fixture';

const payout = '0x52908400098527886E0F7030069857D2E4169EE7';
const USDC = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';

const fixture = walletControlFixture('wallet');
let app: FastifyInstance;
let config: WalletControlConfig;

function createWallet(address: string, callback: string) {
  return app.inject({ method: 'GET', url: '/control/wallet.php', query: { address, callback } });
}

beforeAll(async () => {
  config = fixture.config();
  app = await fixture.build(config);
});

describe('GET /control/wallet.php', () => {
  it('returns the four control fields, with the callback decoded', async () => {
    const callback = 'https://shop.io/ipn?order_id=1&note=a%20b';
    const response = await createWallet(payout, callback);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const body = response.json();
    expect(Object.keys(body).sort()).toEqual(['address_in', 'callback_url', 'ipn_token', 'polygon_address_in']);
    expect(body.callback_url).toBe(callback);
    expect(body.polygon_address_in).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(body.ipn_token.length).toBeGreaterThanOrEqual(32);
    expect(openAddressIn(body.address_in, config.keys)).toBe(body.polygon_address_in.toLowerCase());
    expect(body.address_in.toLowerCase()).not.toContain(body.polygon_address_in.slice(2).toLowerCase());
  });

  it('derives the temporary address from the xpub at the wallet HD index, so the seed can sign for it', async () => {
    const body = (await createWallet(payout, 'https://shop.io/ipn?order_id=derive')).json();
    const { rows } = await fixture.db.pool.query('SELECT hd_index::int AS i FROM wallets WHERE ipn_token = $1', [body.ipn_token]);
    expect(body.polygon_address_in).toBe(mnemonicToAccount(PUBLIC_TEST_MNEMONIC, { addressIndex: rows[0].i }).address);
  });

  it('returns the same wallet for the same pair, whatever the case of the payout address', async () => {
    const callback = 'https://shop.io/ipn?order_id=same';
    const first = (await createWallet(payout, callback)).json();
    expect((await createWallet(payout, callback)).json()).toEqual(first);
    expect((await createWallet(payout.toLowerCase(), callback)).json()).toEqual(first);
  });

  it('returns a new wallet when any callback parameter value differs, comparing the URL exactly', async () => {
    const a = (await createWallet(payout, 'https://shop.io/ipn?order_id=100')).json();
    const b = (await createWallet(payout, 'https://shop.io/ipn?order_id=101')).json();
    const c = (await createWallet(payout, 'https://shop.io/ipn?order_id=100&')).json();
    expect(new Set([a.polygon_address_in, b.polygon_address_in, c.polygon_address_in]).size).toBe(3);
    expect(new Set([a.ipn_token, b.ipn_token, c.ipn_token]).size).toBe(3);
  });

  it('answers a repeat it has seen from memory, without a statement', async () => {
    const callback = 'https://shop.io/ipn?order_id=remembered';
    const first = (await createWallet(payout, callback)).json();
    const statements = jest.spyOn(WalletRepository.prototype, 'createOrGetMany');
    const reserved = jest.spyOn(WalletRepository.prototype, 'reserveHdIndexes');
    try {
      const again = await createWallet(payout, callback);
      expect(again.statusCode).toBe(200);
      expect(again.json()).toEqual(first);
      expect(statements).not.toHaveBeenCalled();
      expect(reserved).not.toHaveBeenCalled();
    } finally {
      statements.mockRestore();
      reserved.mockRestore();
    }
  });

  it('creates exactly one wallet for 50 identical concurrent requests', async () => {
    const callback = 'https://shop.io/ipn?order_id=race';
    const responses = await Promise.all(Array.from({ length: 50 }, () => createWallet(payout, callback)));
    const bodies = responses.map((r) => r.json());
    expect(responses.every((r) => r.statusCode === 200)).toBe(true);
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
    const { rows } = await fixture.db.pool.query('SELECT count(*)::int AS n FROM wallets WHERE callback_url = $1', [callback]);
    expect(rows[0].n).toBe(1);
  });

  it('derives each address on the spot from the xpub, each once across replicas, and records its key', async () => {
    const wallets = new WalletRepository(fixture.db.pool);
    const deriver = new TemporaryAddressDeriver(config.raw.HD_XPUB);
    const one = new AddressSupply(wallets, deriver, { reserveBatch: 7 });
    const other = new AddressSupply(wallets, deriver, { reserveBatch: 7 });
    const taken = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? one : other).take()));
    expect(new Set(taken.map((a) => a.hdIndex)).size).toBe(20);
    for (const address of taken.slice(0, 3)) {
      expect(getAddress(address.polygonAddress)).toBe(
        mnemonicToAccount(PUBLIC_TEST_MNEMONIC, { addressIndex: Number(address.hdIndex) }).address,
      );
    }
    // An address given back (the wallet existed) is the next one handed out.
    one.giveBack(taken[0]!);
    expect(await one.take()).toEqual(taken[0]);
    const created = (await createWallet(payout, 'https://shop.io/ipn?order_id=fingerprint')).json();
    const { rows } = await fixture.db.pool.query('SELECT key_fingerprint FROM wallets WHERE polygon_address = $1', [
      created.polygon_address_in.toLowerCase(),
    ]);
    expect(rows[0].key_fingerprint).toBe(deriver.fingerprint);
  });

  it('reserves the next batch of HD indexes while half of the batch is left, so no new wallet waits for it', async () => {
    const wallets = new WalletRepository(fixture.db.pool);
    const reserved = jest.spyOn(wallets, 'reserveHdIndexes');
    const supply = new AddressSupply(wallets, new TemporaryAddressDeriver(config.raw.HD_XPUB), { reserveBatch: 4 });
    const first = await supply.take();
    const second = await supply.take();
    expect(reserved).toHaveBeenCalledTimes(1);
    // This take leaves one of four: the next batch is asked for now, in the background.
    const third = await supply.take();
    expect(reserved).toHaveBeenCalledTimes(2);
    const rest = await Promise.all(Array.from({ length: 5 }, () => supply.take()));
    expect(new Set([first, second, third, ...rest].map((address) => address.hdIndex)).size).toBe(8);
  });

  it('refuses to serve with an xpub other than the one the database knows', async () => {
    const otherXpub = xpubFromMnemonic('legal winner thank year wave sausage worth useful legal winner thank yellow');
    await expect(fixture.build(fixture.config({ HD_XPUB: otherXpub }))).rejects.toThrow(
      /HD_XPUB: its key \(fingerprint [0-9a-f]{8}\) is not the key this database's temporary wallets were derived from/,
    );
  });

  describe('refuses bad input with a 400 that names the parameter', () => {
    const cases: Array<[string, Record<string, string>, string, RegExp]> = [
      ['missing address', { callback: 'https://shop.io/x?o=1' }, 'address', /required/],
      ['missing callback', { address: payout }, 'callback', /required/],
      ['short address', { address: '0x1234', callback: 'https://shop.io/x?o=1' }, 'address', /40 hex/],
      ['bad checksum', { address: payout.replace('E0F', 'e0F'), callback: 'https://shop.io/x?o=1' }, 'address', /EIP-55/],
      ['zero address', { address: `0x${'0'.repeat(40)}`, callback: 'https://shop.io/x?o=1' }, 'address', /zero address/],
      ['the USDC contract', { address: USDC, callback: 'https://shop.io/x?o=1' }, 'address', /token contract/],
      ['a relative callback', { address: payout, callback: '/ipn?o=1' }, 'callback', /absolute/],
      ['an ftp callback', { address: payout, callback: 'ftp://shop.io/x' }, 'callback', /http or https/],
      ['credentials in the callback', { address: payout, callback: 'https://u:p@shop.io/x' }, 'callback', /password/],
      ['a placeholder domain', { address: payout, callback: 'https://example.com/x?o=1' }, 'callback', /placeholder/],
      ['a reserved parameter', { address: payout, callback: 'https://shop.io/x?ipn_token=1' }, 'callback', /ipn_token/],
      ['a callback over 2048 characters', { address: payout, callback: `https://shop.io/x?o=${'a'.repeat(2100)}` }, 'callback', /2048/],
    ];
    it.each(cases)('%s', async (_name, query, param, message) => {
      const response = await app.inject({ method: 'GET', url: '/control/wallet.php', query });
      expect(response.statusCode).toBe(400);
      const body = response.json();
      expect(body).toMatchObject({ status: 'error', param });
      expect(body.error).toMatch(message);
      expect(typeof body.code).toBe('string');
    });

    it('a repeated parameter', async () => {
      const response = await app.inject({
        method: 'GET',
        url: `/control/wallet.php?address=${payout}&address=${payout}&callback=https%3A%2F%2Fshop.io%2Fx`,
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ code: 'invalid_parameter', param: 'address' });
    });
  });

  it('answers hostile and malformed requests with 4xx JSON, never 500', async () => {
    const urls = [
      '/control/wallet.php?address=%E0%A4%A&callback=x',
      `/control/wallet.php?address=${'%00'.repeat(50)}&callback=%00`,
      '/control/wallet.php?address[]=1&callback[a]=2',
      `/control/wallet.php?${'a=1&'.repeat(2000)}`,
      '/control/../../etc/passwd',
      '/control/wallet.php%00',
    ];
    for (const url of urls) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode).toBeGreaterThanOrEqual(400);
      expect(response.statusCode).toBeLessThan(500);
      expect(response.json().status).toBe('error');
      expect(response.body).not.toMatch(/at .*\.ts:\d+/);
    }
  });

  it('answers unknown routes with a 404 in the error shape', async () => {
    const response = await app.inject({ method: 'GET', url: '/nope.php' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ status: 'error', code: 'not_found' });
  });
});

describe('operations', () => {
  it('reports liveness, readiness and metrics', async () => {
    expect((await app.inject({ url: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await app.inject({ url: '/readyz' })).json()).toEqual({ status: 'ok', checks: { postgres: 'ok' } });
    // /metrics itself is served on METRICS_PORT (see http-layer.test.ts); the registry is the app's.
    const metrics = await app.metrics.metrics();
    expect(metrics).toContain('http_request_duration_seconds_bucket');
    expect(metrics).toContain('route="/control/wallet.php"');
  });

  it('publishes OpenAPI generated from the validation schemas', async () => {
    const doc = (await app.inject({ url: '/docs/json' })).json();
    const params = doc.paths['/control/wallet.php'].get.parameters.map((p: { name: string; required: boolean }) => [p.name, p.required]);
    expect(params).toEqual([
      ['address', true],
      ['callback', true],
      ['order_tolerance_bps', false],
      ['customer_pays_fee', false],
    ]);
  });

  it('echoes a request id and forbids framing', async () => {
    const response = await app.inject({ url: '/healthz', headers: { 'x-request-id': 'req-12345678' } });
    expect(response.headers['x-request-id']).toBe('req-12345678');
    expect(response.headers['x-frame-options']).toBe('DENY');
  });
});
