import type { FastifyInstance } from 'fastify';
import { enqueueDeliveries } from '@gateway/queue';
import {
  CALLBACK_DELIVERY_ID_HEADER,
  CALLBACK_SIGNATURE_HEADER,
  verifyCallbackOrder,
  verifyCallbackSignature,
} from '@usdc-card-gateway/sdk';
import { seedDelivery, type TestDatabase } from '@gateway/app-testkit';
import { waitFor } from '@gateway/testkit';
import { deliveryRow } from '../support/fixtures';
import { MerchantStub, type ReceivedCallback } from '../support/merchant-stub';
import { useWorkerFixture } from '../support/worker-fixture';

// Issue 34: a wallet is one order, and each callback carries the order's figures as the delivery
// recorded them (the sum of its final deposits, what it should bring, its state), signed with the
// rest of the URL, so the merchant's SDK can tell when an order paid in two transfers is whole.
const stub = new MerchantStub();
const fixture = useWorkerFixture('cbw_order_figures', [stub]);

let db: TestDatabase;
let worker: FastifyInstance;

beforeAll(async () => {
  db = fixture.db;
  worker = await fixture.startWorker();
});

async function delivered(id: string): Promise<void> {
  await waitFor(`delivery ${id} to be delivered`, async () => (await deliveryRow(db.pool, id)).status === 'delivered', 15_000);
}

/** The merchant's check of a callback the stub received, with the SDK as a shop runs it. */
function orderCheck(request: ReceivedCallback | undefined, payoutAddress: string, ipnToken: string) {
  return verifyCallbackOrder({
    url: `${stub.origin}${request?.url}`,
    header: request?.headers[CALLBACK_SIGNATURE_HEADER],
    deliveryId: request?.headers[CALLBACK_DELIVERY_ID_HEADER],
    publicKeys: [fixture.key.publicKey],
    payoutAddress,
    ipnToken,
    minimumExpected: '24',
  });
}

describe("the order's figures in the callback", () => {
  it('reach the merchant signed: two deposits of one order, the first underpaid, the second paid with the total', async () => {
    const first = await fixture.deliver(worker, `${stub.origin}/order?order_id=34`, 1, {
      valueCoin: 10_000_000n,
      orderTotalCoin: 10_000_000n,
      orderExpectedCoin: 25_000_000n,
      orderState: 'underpaid',
    });
    const { wallet } = first;
    await delivered(first.ids[0]!);
    const second = await seedDelivery(db.pool, {
      walletId: wallet.id,
      valueCoin: 15_000_001n,
      orderTotalCoin: 25_000_001n,
      orderExpectedCoin: 25_000_000n,
      orderState: 'paid',
    });
    await enqueueDeliveries(worker.callbackQueue, [second]);
    await delivered(second);

    const [underpaid, paid] = stub.receivedOn('/order');
    expect(underpaid?.url).toMatch(/&ipn_token=[^&]+&order_total_coin=10&order_expected_coin=25&order_state=underpaid$/);
    expect(paid?.url).toMatch(/&ipn_token=[^&]+&order_total_coin=25\.000001&order_expected_coin=25&order_state=paid$/);
    expect(orderCheck(underpaid, wallet.payoutAddress, wallet.ipnToken)).toMatchObject({
      ok: true,
      deliveryId: first.ids[0],
      order: { state: 'underpaid', paid: false, totalBaseUnits: 10_000_000n, expectedBaseUnits: 25_000_000n },
    });
    expect(orderCheck(paid, wallet.payoutAddress, wallet.ipnToken)).toMatchObject({
      ok: true,
      deliveryId: second,
      order: { state: 'paid', paid: true, total: '25.000001', totalBaseUnits: 25_000_001n, expected: '25' },
    });
    // The state is signed: a merchant never reads a changed one.
    const tampered = { ...underpaid!, url: underpaid!.url.replace('order_state=underpaid', 'order_state=paid') };
    expect(orderCheck(tampered, wallet.payoutAddress, wallet.ipnToken)).toEqual({ ok: false, reason: 'no_matching_signature' });
  });

  it('are absent from a delivery written before them, and the merchant falls back to the per-deposit check', async () => {
    const { wallet, ids } = await fixture.deliver(worker, `${stub.origin}/before?order_id=35`, 1, {
      valueCoin: 25_000_000n,
      valueForwardedCoin: 24_750_000n,
    });
    await delivered(ids[0]!);
    const [request] = stub.receivedOn('/before');
    expect(request?.url).not.toMatch(/order_(total_coin|expected_coin|state)/);
    expect(orderCheck(request, wallet.payoutAddress, wallet.ipnToken)).toEqual({ ok: false, reason: 'no_order_figures' });
    expect(
      verifyCallbackSignature({
        url: `${stub.origin}${request?.url}`,
        header: request?.headers[CALLBACK_SIGNATURE_HEADER],
        deliveryId: request?.headers[CALLBACK_DELIVERY_ID_HEADER],
        publicKeys: [fixture.key.publicKey],
        payoutAddress: wallet.payoutAddress,
        ipnToken: wallet.ipnToken,
        expectedAmount: '24.75',
      }),
    ).toMatchObject({ ok: true, deliveryId: ids[0] });
  });
});
