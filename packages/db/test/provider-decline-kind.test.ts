import { randomBytes, randomUUID } from 'node:crypto';
import { DECLINE_KINDS, type DeclineKind, type ProviderPaymentStatus } from '@gateway/domain';
import { createTestDatabase, type TestDatabase } from './support/test-database';
import { PaymentReceiptRepository } from '../src/repositories/payment-receipt-repository';
import { ProviderStatusRepository } from '../src/repositories/provider-status-repository';
import { WalletStoryRepository } from '../src/repositories/wallet-story-repository';

// The kind of a decline's reason (migration 035), written by the one writer of provider statuses as
// payment-redirect's role (its column grant), and read back where the reason is read: the receipt
// (the second chance's facts) and the operator's story of the wallet.

let db: TestDatabase;
let statuses: ProviderStatusRepository;
let receipts: PaymentReceiptRepository;
let stories: WalletStoryRepository;

beforeAll(async () => {
  db = await createTestDatabase('decline_kind');
  statuses = new ProviderStatusRepository(db.appPool('payment-redirect'));
  receipts = new PaymentReceiptRepository(db.appPool('payment-redirect'));
  stories = new WalletStoryRepository(db.pool);
});
afterAll(() => db.drop());

async function newPayment(): Promise<{ id: string; walletId: string }> {
  const wallet = await db.pool.query<{ id: string }>(
    `INSERT INTO wallets (hd_index, polygon_address, address_in, payout_address, callback_url, dedupe_key, ipn_token, key_fingerprint, platform_fee_bps)
     VALUES ((SELECT coalesce(max(hd_index), 0) + 1 FROM wallets), $1, 'sealed', '0x52908400098527886e0f7030069857d2e4169ee7',
             'https://shop.io/ipn?order=' || $2, decode($2, 'hex'), $3, 'a1b2c3d4', 100)
     RETURNING id`,
    [`0x${randomBytes(20).toString('hex')}`, randomBytes(16).toString('hex'), randomBytes(24).toString('base64url')],
  );
  const id = randomUUID();
  const walletId = wallet.rows[0]!.id;
  await db.pool.query(
    `INSERT INTO payments (id, wallet_id, amount, currency, provider, email) VALUES ($1, $2, 25, 'USD', 'moonpay', 'jane@shop.io')`,
    [id, walletId],
  );
  return { id, walletId };
}

async function report(id: string, status: ProviderPaymentStatus, declineKind?: DeclineKind): Promise<string> {
  return statuses.recordProviderStatus({
    providers: ['moonpay'],
    match: { paymentId: id },
    status,
    rawStatus: status,
    providerReference: `order-${id}`,
    reason: status === 'declined' || status === 'failed' ? 'Card declined' : undefined,
    ...(declineKind ? { declineKind } : {}),
  });
}

async function storedKind(id: string): Promise<string | null> {
  const { rows } = await db.pool.query<{ provider_decline_kind: string | null }>(
    'SELECT provider_decline_kind FROM payments WHERE id = $1',
    [id],
  );
  return rows[0]!.provider_decline_kind;
}

describe('the provider decline kind', () => {
  it.each(DECLINE_KINDS.map((kind) => [kind]))('%s is stored with the decline and read on the receipt and in the story', async (kind) => {
    const { id, walletId } = await newPayment();
    expect(await report(id, 'declined', kind)).toBe('updated');
    expect(await storedKind(id)).toBe(kind);
    expect(await receipts.findReceipt(id)).toMatchObject({
      providerStatus: 'declined',
      providerReason: 'Card declined',
      providerDeclineKind: kind,
    });
    const story = await stories.story(walletId);
    expect(story?.payments.find((payment) => payment.id === id)).toMatchObject({ providerDeclineKind: kind });
  });

  it('is other for a failure reported without a documented reason', async () => {
    const { id } = await newPayment();
    expect(await report(id, 'failed')).toBe('updated');
    expect(await storedKind(id)).toBe('other');
  });

  it('is none while the payment is under way or paid, whatever the report carried', async () => {
    const { id } = await newPayment();
    expect(await report(id, 'pending', 'card_refused')).toBe('updated');
    expect(await storedKind(id)).toBeNull();
    expect((await receipts.findReceipt(id))?.providerDeclineKind).toBeNull();
    expect(await report(id, 'paid')).toBe('updated');
    expect(await storedKind(id)).toBeNull();
  });

  it('a kind the domain does not know is not stored as such: the failure is other', async () => {
    const { id } = await newPayment();
    expect(await report(id, 'declined', 'card_declined' as DeclineKind)).toBe('updated');
    expect(await storedKind(id)).toBe('other');
  });

  it('says when a report gave the payment a decline kind it did not have: once per payment and kind', async () => {
    const { id } = await newPayment();
    const recorded = (status: ProviderPaymentStatus, declineKind?: DeclineKind) =>
      statuses.recordProviderReport({
        providers: ['moonpay'],
        match: { paymentId: id },
        status,
        rawStatus: status,
        providerReference: `order-${id}`,
        ...(declineKind ? { declineKind } : {}),
      });
    expect(await recorded('pending')).toEqual({ outcome: 'updated' });
    expect(await recorded('failed', 'over_limit')).toEqual({ outcome: 'updated', declined: 'over_limit' });
    // MoonPay repeats a failure (transaction_updated, then transaction_failed): recorded again, not a new decline.
    expect(await recorded('failed', 'over_limit')).toEqual({ outcome: 'updated' });
    expect(await recorded('failed', 'identity_failed')).toEqual({ outcome: 'updated', declined: 'identity_failed' });
    expect(await recorded('pending')).toEqual({ outcome: 'unchanged' });
  });

  it('the database refuses a kind outside the list, and a kind on a payment that did not fail', async () => {
    const { id } = await newPayment();
    const write = (status: string, kind: string) =>
      db
        .appPool('payment-redirect')
        .query('UPDATE payments SET provider_status = $2, provider_decline_kind = $3 WHERE id = $1', [id, status, kind])
        .then(
          () => 'written',
          (error: { code?: string }) => error.code,
        );
    expect(await write('declined', 'card_declined')).toBe('23514');
    expect(await write('pending', 'card_refused')).toBe('23514');
    expect(await write('declined', 'over_limit')).toBe('written');
  });
});
