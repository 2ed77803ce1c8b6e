import type { FastifyInstance } from 'fastify';
import IORedis from 'ioredis';
import { startAclRedis, type AclRedis } from '@gateway/app-testkit';
import { sealAddressIn, type EvmAddress } from '@gateway/domain';
import { REDIS_USERS } from '@gateway/queue';
import { ProviderCircuitBreaker } from '../../src/services/checkout-signals/provider-circuit-breaker';
import { paymentRedirectFixture } from '../support/payment-redirect-fixture';
import { startTransakFake, TRANSAK_SETTINGS, transakAt, transakTokenKey, type TransakFake } from '../support/transak';

// payment-redirect as its own Redis ACL user (a private redis-server with every app's user): a
// Transak checkout mints and stores the partner token, counts the rate limit, caches the rates and
// Transak's quote for the order's band, counts the call in Transak's circuit and queues the status
// look-up, all as that user; a circuit opens and lets its trial through as that user too; no other
// app's user can read the token's key.

let fake: TransakFake;
let acl: AclRedis;
let app: FastifyInstance;
const fixture = paymentRedirectFixture('redis_acl', {
  ...TRANSAK_SETTINGS,
});
const temporary = '0x4545454545454545454545454545454545454545' as EvmAddress;
const tokenKey = () => transakTokenKey(acl.prefix);

beforeAll(async () => {
  fake = await startTransakFake();
  acl = await startAclRedis('pr-acl');
  const config = fixture.config({
    ...transakAt(fake.url),
    REDIS_URL: acl.urlOf('payment-redirect'),
    REDIS_PREFIX: acl.prefix,
  });
  app = await fixture.build(config, { redis: acl.testRedisOf('payment-redirect') });
  const addressIn = sealAddressIn(temporary, config.keys);
  await fixture.insertWallet({ temporary, addressIn, callbackUrl: 'https://shop.io/ipn?order=acl' });
  const response = await app.inject({
    method: 'GET',
    url: '/process-payment.php',
    query: { address: addressIn, amount: '75.00', provider: 'transak', email: 'jane@shop.io', currency: 'USD' },
    headers: { accept: 'application/json' },
  });
  expect(response.statusCode).toBe(200);
}, 30_000);

afterAll(async () => {
  await app?.close();
  await acl?.stop();
  await fake?.close();
});

describe('payment-redirect as its own Redis user', () => {
  it('stores the token, counts the rate limit, caches the rates and the quote and queues the look-up under its areas', async () => {
    expect(await acl.connect('payment-redirect').get(tokenKey())).toContain(fake.currentToken!);
    // The server's default user looks at every key the app wrote: each is in one of its areas.
    const look = new IORedis(acl.server.url);
    try {
      const keys = await look.keys(`${acl.prefix}:*`);
      const areas = new Set(keys.map((key) => key.slice(acl.prefix.length + 1).split(':')[0]));
      // provider-circuit: the Transak session checkout's outcome, counted in its circuit's window.
      expect([...areas].sort()).toEqual([
        'provider-circuit',
        'provider-quotes',
        'provider-status',
        'provider-tokens',
        'rate-limit',
        'rates',
      ]);
    } finally {
      look.disconnect();
    }
  });

  it("opens a provider's circuit and lets its trial through (the compare-and-set script) as that user", async () => {
    let clock = Date.now();
    const breaker = new ProviderCircuitBreaker({
      redis: acl.connect('payment-redirect'),
      prefix: acl.prefix,
      settings: { windowSeconds: 60, minCalls: 2, failurePercent: 50, coolOffSeconds: 5 },
      metrics: app.providerMetrics.circuit,
      log: app.log,
      now: () => clock,
    });
    for (let i = 0; i < 2; i += 1) {
      const admission = await breaker.admit('acl-test');
      if (admission.admit) await breaker.record(admission.ticket, 'error');
    }
    expect((await breaker.listed([{ id: 'acl-test' }])).states.get('acl-test')).toBe('open');
    clock += 5_000;
    expect((await breaker.admit('acl-test')).admit).toBe(true);
    expect((await breaker.listed([{ id: 'acl-test' }])).states.get('acl-test')).toBe('half_open');
    expect(await app.metrics.getSingleMetricAsString('payment_redirect_provider_circuit_store_errors_total')).toMatch(/ 0$/m);
  });

  it("no other app's user reads, overwrites or deletes the Transak token", async () => {
    for (const user of REDIS_USERS.filter((user) => user !== 'payment-redirect')) {
      const other = acl.connect(user);
      await expect(other.get(tokenKey())).rejects.toThrow(/NOPERM/);
      await expect(other.set(tokenKey(), '{}')).rejects.toThrow(/NOPERM/);
      await expect(other.del(tokenKey())).rejects.toThrow(/NOPERM/);
    }
  });
});
