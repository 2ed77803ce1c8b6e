import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sealAddressIn, type EvmAddress } from '@gateway/domain';
import {
  SIMPLEX_FAKE_API_KEY,
  SIMPLEX_FAKE_PARTNER,
  startSimplexFake,
  type SimplexFake,
} from '../../../../packages/providers/test/support/simplex-fake';
import { waitFor } from '@gateway/testkit';
import type { PaymentRedirectConfig } from '../../src/config';
import { paymentRedirectFixture } from '../support/payment-redirect-fixture';

// Simplex's poll method (integrations.simplex.com/docs/poll-method): read the events, keep each,
// delete each at Simplex. payment-redirect's consumer keeps them in PostgreSQL, one replica at a
// time; the status look-up reads the kept copy.

const fixture = paymentRedirectFixture('provider-events', { SANDBOX_CHECKOUT: 'off' });
const temporary = '0x5555555555555555555555555555555555555555' as EvmAddress;
let simplex: SimplexFake;
let config: PaymentRedirectConfig;
let app: FastifyInstance;
let addressIn: string;

beforeAll(async () => {
  simplex = await startSimplexFake();
  config = fixture.config({
    PROVIDER_SIMPLEX_API_KEY: SIMPLEX_FAKE_API_KEY,
    PROVIDER_SIMPLEX_PARTNER: SIMPLEX_FAKE_PARTNER,
    PROVIDER_SIMPLEX_MODE: 'test',
    PROVIDER_SIMPLEX_API_URL: simplex.url,
    STATUS_POLL_WORKER: 'on',
    STATUS_POLL_TIMEOUT_MS: '1000',
    // The tests run the passes themselves.
    PROVIDER_EVENTS_INTERVAL_MS: '3600000',
  });
  app = await fixture.build(config);
  // The pass run at start (an empty queue) is over; the tests run theirs.
  await app.providerEventConsumer!.stop();
  addressIn = sealAddressIn(temporary, config.keys);
  await fixture.insertWallet({ temporary, addressIn, callbackUrl: `https://shop.io/ipn?order=${randomBytes(4).toString('hex')}` });
});
beforeEach(() => simplex.reset());
afterEach(() => expect(simplex.problems).toEqual([]));
afterAll(async () => {
  await simplex.close();
});

/** A Simplex checkout of a new payment: our payment id and the Simplex payment id the form carries. */
async function simplexPayment(): Promise<{ paymentId: string; simplexId: string }> {
  const page = await app.inject({
    url: '/process-payment.php',
    query: { address: addressIn, amount: '250.00', provider: 'simplex', email: 'jane@shop.io', currency: 'USD' },
  });
  expect(page.statusCode).toBe(200);
  const paymentId = /name="return_url_success" value="[^"]*\/payment\/([0-9a-f-]{36})"/.exec(page.body)![1]!;
  const simplexId = /name="payment_id" value="([0-9a-f-]{36})"/.exec(page.body)![1]!;
  return { paymentId, simplexId };
}

const event = (name: string, payment: { paymentId: string; simplexId: string }, timestamp: string) => ({
  event_id: `ev-${randomBytes(6).toString('hex')}`,
  name,
  payment: { id: payment.simplexId, status: 'pending', partner_end_user_id: payment.paymentId },
  timestamp,
});

const kept = async (): Promise<{ event_id: string; payment_id: string | null; provider_reference: string | null }[]> =>
  (
    await fixture.db.pool.query(
      'SELECT event_id, payment_id::text, provider_reference FROM provider_events WHERE provider = $1 ORDER BY event_id',
      ['simplex'],
    )
  ).rows;

const providerStatus = async (paymentId: string) =>
  (await fixture.db.pool.query('SELECT provider_status, provider_raw_status FROM payments WHERE id = $1', [paymentId])).rows[0];

describe("Simplex's events queue, consumed by payment-redirect", () => {
  it('keeps each event in PostgreSQL and deletes it at Simplex; the look-up reads the kept copy', async () => {
    const payment = await simplexPayment();
    const events = [
      event('payment_request_submitted', payment, '2026-11-25T12:01:00Z'),
      event('payment_simplexcc_approved', payment, '2026-11-25T12:03:00Z'),
    ];
    simplex.events = [...events];
    await expect(app.providerEventConsumer!.runOnce()).resolves.toEqual({ simplex: 'consumed' });
    // Simplex's queue is empty: each event deleted by its id.
    expect(simplex.events).toEqual([]);
    expect(simplex.eventDeletes.map((request) => request.path)).toEqual(events.map((e) => `/wallet/merchant/v2/events/${e.event_id}`));
    expect(await kept()).toEqual(
      events
        .map((e) => ({ event_id: e.event_id, payment_id: payment.paymentId, provider_reference: payment.simplexId }))
        .sort((a, b) => a.event_id.localeCompare(b.event_id)),
    );
    // The look-up (the kept events; Simplex's queue is empty now) records the latest.
    await app.askProvider(payment.paymentId);
    expect(await providerStatus(payment.paymentId)).toEqual({
      provider_status: 'charged',
      provider_raw_status: 'payment_simplexcc_approved',
    });
    expect(simplex.eventReads).toHaveLength(1);
  });

  it('two replicas never empty the queue at once: the second finds it taken and leaves it', async () => {
    const payment = await simplexPayment();
    simplex.events = [event('payment_simplexcc_approved', payment, '2026-11-25T12:03:00Z')];
    const replica = await fixture.build(config);
    await replica.providerEventConsumer!.stop();
    // The first replica's read does not answer while the second tries.
    simplex.answerEvents = () => 'hang';
    const first = app.providerEventConsumer!.runOnce();
    await waitFor('the first replica reading the events', () => simplex.eventReads.length === 1, 5_000, 10);
    await expect(replica.providerEventConsumer!.runOnce()).resolves.toEqual({ simplex: 'busy' });
    expect(simplex.eventReads).toHaveLength(1);
    // The first gives up at its deadline (STATUS_POLL_TIMEOUT_MS) and lets go: the next pass empties the queue.
    delete simplex.answerEvents;
    await expect(first).resolves.toEqual({ simplex: 'failed' });
    await expect(replica.providerEventConsumer!.runOnce()).resolves.toEqual({ simplex: 'consumed' });
    expect(simplex.events).toEqual([]);
    await replica.close();
  });

  it('a stop between keeping and deleting loses no event and doubles none', async () => {
    const payment = await simplexPayment();
    const events = [
      event('payment_simplexcc_approved', payment, '2026-11-25T12:03:00Z'),
      event('payment_simplexcc_crypto_sent', payment, '2026-11-25T12:09:00Z'),
    ];
    simplex.events = [...events];
    const before = (await kept()).length;
    simplex.answerEventDelete = () => ({ status: 503, body: '' });
    await expect(app.providerEventConsumer!.runOnce()).resolves.toEqual({ simplex: 'failed' });
    // The first kept, then its delete failed: still in Simplex's queue, the second not read yet.
    expect((await kept()).length).toBe(before + 1);
    expect(simplex.events).toHaveLength(2);
    delete simplex.answerEventDelete;
    await expect(app.providerEventConsumer!.runOnce()).resolves.toEqual({ simplex: 'consumed' });
    expect(simplex.events).toEqual([]);
    const mine = (await kept()).filter((row) => row.payment_id === payment.paymentId);
    expect(mine.map((row) => row.event_id).sort()).toEqual(events.map((e) => e.event_id).sort());
    await app.askProvider(payment.paymentId);
    expect(await providerStatus(payment.paymentId)).toEqual({
      provider_status: 'paid',
      provider_raw_status: 'payment_simplexcc_crypto_sent',
    });
  });
});
