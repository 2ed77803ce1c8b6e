import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { CheckoutMeasureRepository } from '@gateway/db/payment-redirect';
import { waitFor } from '@gateway/testkit';
import { CheckoutMeasures } from '../../src/services/checkout-signals/checkout-measures';
import { paymentRedirectFixture } from '../support/payment-redirect-fixture';

// The measures as the page reads them: from payment-redirect's own database role, read once per
// cache period whatever the page loads, and never waited for again once read.

const fixture = paymentRedirectFixture('checkout_measures');
const { log } = Fastify({ logger: false });
let clock = 0;
let reads = 0;

async function checkout(provider: string): Promise<void> {
  const { walletId } = await fixture.insertWallet({
    temporary: `0x${randomUUID().replace(/-/g, '').padEnd(40, '7')}` as `0x${string}`,
    addressIn: randomUUID(),
    callbackUrl: `https://shop.io/ipn?order=${randomUUID()}`,
    hdIndex: BigInt(Math.floor(Math.random() * 1e9)),
  });
  await fixture.db.pool.query(
    `INSERT INTO payments (id, wallet_id, amount, currency, provider, email, status, checkout_url)
     VALUES ($1, $2, '50.00', 'USD', $3, 'buyer@example.com', 'redirected', 'https://checkout.example/c')`,
    [randomUUID(), walletId, provider],
  );
}

it('reads once per cache period, shares a read under way, and answers the last measures while the next read runs', async () => {
  const repository = new CheckoutMeasureRepository(fixture.db.appPool('payment-redirect'));
  const measures = new CheckoutMeasures({
    repository: {
      measure: (days) => {
        reads += 1;
        return repository.measure(days);
      },
    },
    windowDays: 30,
    log,
    cacheMs: 60_000,
    now: () => clock,
  });
  await checkout('moonpay');
  const [a, b] = await Promise.all([measures.current(), measures.current()]);
  expect(reads).toBe(1);
  expect(a).toBe(b);
  expect(a.get('moonpay')).toEqual({ attempts: 1, reachedUsdc: 0 });

  await checkout('moonpay');
  clock += 59_999;
  expect((await measures.current()).get('moonpay')?.attempts).toBe(1);
  expect(reads).toBe(1);

  // Expired: the page gets the last measures at once, and the next read runs behind it.
  clock += 1;
  expect((await measures.current()).get('moonpay')?.attempts).toBe(1);
  expect(reads).toBe(2);
  await waitFor('the next read', async () => (await measures.current()).get('moonpay')?.attempts === 2);
  expect(reads).toBe(2);
});
