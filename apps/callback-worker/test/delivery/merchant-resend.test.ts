import { MerchantCallbackRepository } from '@gateway/db/wallet-control';
import { waitFor } from '@gateway/testkit';
import { CALLBACK_DELIVERY_ID_HEADER, CALLBACK_SIGNATURE_HEADER, verifyCallbackSignature } from '@usdc-card-gateway/sdk';
import { attemptRows, deliveryRow } from '../support/fixtures';
import { MerchantStub } from '../support/merchant-stub';
import { useWorkerFixture } from '../support/worker-fixture';

// A merchant's resend (wallet-control's resend-callback.php): its latest, delivered callback set back
// to pending by wallet-control's role, and nothing queued. The worker's reconciler finds it due and
// the shop gets the same callback again: the same delivery id and URL, signed anew.
const stub = new MerchantStub();
const fixture = useWorkerFixture('cbw_merchant_resend', [stub]);

it('a resent callback reaches the merchant again, the same delivery, through the reconciler', async () => {
  const worker = await fixture.startWorker({ env: { RECONCILE_INTERVAL_MS: '200' } });
  const { wallet, ids } = await fixture.deliver(worker, `${stub.origin}/ipn?order=34`, 1);
  const id = ids[0]!;
  await waitFor('the first delivery', async () => (await deliveryRow(fixture.db.pool, id)).status === 'delivered', 15_000);

  const resent = await new MerchantCallbackRepository(fixture.db.appPool('wallet-control')).resendLatest(wallet.id);
  expect(resent).toMatchObject({ resent: true, deliveryId: id });
  await waitFor('the resent callback', async () => stub.receivedOn('/ipn').length === 2, 15_000);
  await waitFor('the resend delivered', async () => (await deliveryRow(fixture.db.pool, id)).status === 'delivered', 15_000);

  const [first, again] = stub.receivedOn('/ipn');
  expect(again!.headers[CALLBACK_DELIVERY_ID_HEADER]).toBe(id);
  expect(first!.headers[CALLBACK_DELIVERY_ID_HEADER]).toBe(id);
  expect(again!.url).toBe(first!.url);
  expect(
    verifyCallbackSignature({
      expectedAmount: false,
      url: `${stub.origin}${again!.url}`,
      header: again!.headers[CALLBACK_SIGNATURE_HEADER],
      deliveryId: id,
      publicKeys: [fixture.key.publicKey],
      payoutAddress: wallet.payoutAddress,
    }),
  ).toMatchObject({ ok: true, scheme: 'v2', deliveryId: id });
  expect(await deliveryRow(fixture.db.pool, id)).toMatchObject({ status: 'delivered', attempt_count: 2, resend_count: 1 });
  expect((await attemptRows(fixture.db.pool, id)).map((attempt) => [attempt.attempt_no, attempt.status_code])).toEqual([
    [1, 200],
    [2, 200],
  ]);
});
