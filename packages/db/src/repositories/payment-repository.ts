import type { Pool } from 'pg';
import {
  deliveryTxHash,
  FINAL_PROVIDER_STATUSES,
  PAYMENT_MOVES,
  PROVIDER_REPORT_LIMITS,
  providerIdentifier,
  providerText,
  judgeProviderReport,
  reportReplayKey,
  sqlStatusList,
  type ReportedDestination,
  type WebhookPaymentFound,
  webhookPaymentLookup,
  type DepositStatus,
  type PaymentStatus,
  type ProviderPaymentStatus,
} from '@gateway/domain';
import { inTransaction } from '../in-transaction';

export interface NewPayment {
  id: string;
  /** Temporary wallet the payment is for, as opened from address_in. */
  polygonAddress: string;
  amount: string;
  currency: string;
  provider: string;
  email: string;
  /** SHA-256 of the payment's key (issuePaymentKey in @gateway/domain). */
  keyHash: Buffer;
}

/**
 * What became of a payment asked to be recorded: recorded; no wallet has its address; or its
 * wallet (one order) has had as many payments as it may (ORDER_ATTEMPTS_MAX).
 */
export type PaymentRecording = 'recorded' | 'unknown_wallet' | 'attempts_exhausted';

/** What the provider gave for a payment: the customer's checkout, and its own reference when it gives one. */
export interface RecordedCheckout {
  id: string;
  /** A redirect checkout's URL, or a form checkout's action. */
  checkoutUrl: string;
  /** The fields a form checkout posts; absent for a URL. */
  formFields?: Readonly<Record<string, string>>;
  /** When the provider stops accepting it; absent for a URL that never expires. */
  expiresAt?: Date;
  singleUse?: boolean;
  /** Handed out as it is recorded (a single-use one is then used up). */
  served?: boolean;
  providerReference?: string;
  /**
   * Its provider's first status look-up (migration 021), scheduled in the same statement: an
   * earlier one already set is kept, and a payment whose provider status is final is left alone.
   */
  statusPollDueAt?: Date;
}

/** A fresh checkout the customer's link obtained, as the payment's `attempt`-th. */
export interface RenewedCheckout extends RecordedCheckout {
  attempt: number;
}

/** What the customer's link needs of a payment: its order, its state, and the checkout recorded last. */
export interface PaymentCheckoutRecord {
  id: string;
  polygonAddress: string;
  amount: string;
  currency: string;
  provider: string;
  email: string;
  status: PaymentStatus;
  providerStatus: ProviderPaymentStatus | null;
  /** USDC arrived in the wallet since the payment started. */
  hasDeposit: boolean;
  /** Checkouts the provider gave for it so far. */
  attempts: number;
  /** SHA-256 of its key; null for a payment recorded before keys existed (migration 027). */
  keyHash: Buffer | null;
  checkout: {
    url: string;
    formFields: Record<string, string> | null;
    expiresAt: Date | null;
    singleUse: boolean;
    servedAt: Date | null;
  } | null;
}

export class PaymentRepository {
  constructor(private readonly pool: Pool) {}

  /**
   * Records each payment ('creating': before its provider is asked for a checkout) against the
   * wallet that owns its `polygonAddress`, the whole batch in one statement, counting it in the
   * wallet's attempts (wallet_payment_attempts, migration 027): a payment whose place among its
   * wallet's attempts is beyond `attemptsMax` is not recorded. The count is the row's, updated under
   * its lock, so concurrent batches never record more than `attemptsMax` between them; refused
   * attempts count too. A statement that fails counts nothing (it is rolled back whole).
   */
  async insertManyForWallets(payments: readonly NewPayment[], attemptsMax: number): Promise<PaymentRecording[]> {
    const { rows } = await this.pool.query<{ id: string; recorded: boolean }>({
      name: 'payments-insert-for-wallets',
      text: `WITH input AS (
               SELECT i.id, w.id AS wallet_id, i.amount, i.currency, i.provider, i.email, i.key_hash,
                      row_number() OVER (PARTITION BY w.id ORDER BY i.ord) AS place
               FROM unnest($1::uuid[], $2::text[], $3::numeric[], $4::text[], $5::text[], $6::text[], $7::bytea[])
                 WITH ORDINALITY AS i(id, polygon_address, amount, currency, provider, email, key_hash, ord)
               JOIN wallets w ON w.polygon_address = i.polygon_address
             ),
             asked AS (SELECT wallet_id, count(*) AS n FROM input GROUP BY wallet_id),
             counted AS (
               INSERT INTO wallet_payment_attempts AS c (wallet_id, attempts)
               SELECT wallet_id, n FROM asked
               ON CONFLICT (wallet_id) DO UPDATE SET attempts = c.attempts + EXCLUDED.attempts
               RETURNING c.wallet_id, c.attempts
             ),
             recorded AS (
               INSERT INTO payments (id, wallet_id, amount, currency, provider, email, customer_key_hash)
               SELECT i.id, i.wallet_id, i.amount, i.currency, i.provider, i.email, i.key_hash
               FROM input i JOIN asked a USING (wallet_id) JOIN counted c USING (wallet_id)
               -- Its place among all the wallet's attempts: those counted before this statement, then its place in it.
               WHERE c.attempts - a.n + i.place <= $8
               RETURNING id
             )
             SELECT i.id, r.id IS NOT NULL AS recorded FROM input i LEFT JOIN recorded r ON r.id = i.id`,
      values: [
        payments.map((p) => p.id),
        payments.map((p) => p.polygonAddress.toLowerCase()),
        payments.map((p) => p.amount),
        payments.map((p) => p.currency),
        payments.map((p) => p.provider),
        payments.map((p) => p.email),
        payments.map((p) => p.keyHash),
        attemptsMax,
      ],
    });
    const found = new Map(rows.map((row) => [row.id, row.recorded]));
    return payments.map((payment) => {
      const recorded = found.get(payment.id);
      return recorded === undefined ? 'unknown_wallet' : recorded ? 'recorded' : 'attempts_exhausted';
    });
  }

  /**
   * Takes one of the payment's second chances; false when it has had `max` already (or no such
   * payment). Taken before the new payment is recorded: a second chance whose checkout then fails
   * still counts.
   */
  async claimSecondChance(id: string, max: number): Promise<boolean> {
    const { rowCount } = await this.pool.query({
      name: 'payments-claim-second-chance',
      text: 'UPDATE payments SET second_chances = second_chances + 1 WHERE id = $1 AND second_chances < $2',
      values: [id, max],
    });
    return rowCount === 1;
  }

  /**
   * creating → redirected with each checkout (PAYMENT_MOVES.recordCheckout), and its first status
   * look-up scheduled where asked, the batch in one statement; false where the move is not allowed.
   */
  async recordCheckouts(checkouts: readonly RecordedCheckout[]): Promise<boolean[]> {
    // Not a named (prepared) statement: the generic plan cached while the table is small joins by
    // scanning all of payments, and keeps doing so as it grows (measured: Process Payment at 0.38×
    // the one-INSERT baseline instead of 0.6×). Planned each time, it looks each id up by the key.
    const { rows } = await this.pool.query<{ id: string }>(
      `UPDATE payments p SET status = '${PAYMENT_MOVES.recordCheckout.to}', checkout_url = i.checkout_url,
              provider_reference = COALESCE(i.provider_reference, p.provider_reference),
              checkout_form_fields = i.form_fields::jsonb, checkout_expires_at = i.expires_at, checkout_single_use = i.single_use,
              checkout_served_at = CASE WHEN i.single_use AND i.served THEN now() END, checkout_attempts = 1,
              status_poll_due_at = CASE WHEN i.poll_due_at IS NULL OR p.provider_status = ANY($9::text[]) THEN p.status_poll_due_at
                                        ELSE LEAST(COALESCE(p.status_poll_due_at, i.poll_due_at), i.poll_due_at) END
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::boolean[], $7::boolean[], $8::timestamptz[])
         AS i(id, checkout_url, provider_reference, form_fields, expires_at, single_use, served, poll_due_at)
       WHERE p.id = i.id AND p.status IN (${sqlStatusList(PAYMENT_MOVES.recordCheckout.from)})
       RETURNING p.id`,
      [
        checkouts.map((c) => c.id),
        checkouts.map((c) => c.checkoutUrl),
        checkouts.map((c) => providerIdentifier(c.providerReference) ?? null),
        ...checkoutColumns(checkouts),
        checkouts.map((c) => c.statusPollDueAt ?? null),
        FINAL_PROVIDER_STATUSES,
      ],
    );
    const recorded = new Set(rows.map((row) => row.id));
    return checkouts.map((checkout) => recorded.has(checkout.id));
  }

  /**
   * The customer's link: the payment's order, state and last checkout, and whether USDC arrived
   * since it started; undefined for no such payment.
   */
  async findCheckout(id: string): Promise<PaymentCheckoutRecord | undefined> {
    const { rows } = await this.pool.query<CheckoutRow>({
      name: 'payments-find-checkout',
      text: `SELECT p.id, w.polygon_address, p.amount::text AS amount, p.currency, p.provider, p.email, p.status, p.provider_status,
                    EXISTS (SELECT 1 FROM deposits d WHERE d.wallet_id = p.wallet_id AND d.seen_at >= p.created_at
                            AND d.status <> 'orphaned') AS has_deposit,
                    p.checkout_attempts, p.checkout_url, p.checkout_form_fields, p.checkout_expires_at, p.checkout_single_use,
                    p.checkout_served_at, p.customer_key_hash
             FROM payments p JOIN wallets w ON w.id = p.wallet_id
             WHERE p.id = $1`,
      values: [id],
    });
    const row = rows[0];
    if (!row) return undefined;
    return {
      id: row.id,
      polygonAddress: row.polygon_address,
      amount: row.amount,
      currency: row.currency.trim(),
      provider: row.provider,
      email: row.email,
      status: row.status,
      providerStatus: row.provider_status,
      hasDeposit: row.has_deposit,
      attempts: row.checkout_attempts,
      keyHash: row.customer_key_hash,
      checkout:
        row.status === 'redirected' && row.checkout_url !== null
          ? {
              url: row.checkout_url,
              formFields: row.checkout_form_fields,
              expiresAt: row.checkout_expires_at,
              singleUse: row.checkout_single_use,
              servedAt: row.checkout_served_at,
            }
          : null,
    };
  }

  /**
   * Marks the `attempt`-th checkout, single use, as handed out; false when it was already (a
   * concurrent load of the link took it) or is no longer the payment's checkout.
   */
  async claimSingleUse(id: string, attempt: number): Promise<boolean> {
    const { rowCount } = await this.pool.query({
      name: 'payments-claim-single-use',
      text: `UPDATE payments SET checkout_served_at = now()
             WHERE id = $1 AND checkout_attempts = $2 AND checkout_single_use AND checkout_served_at IS NULL`,
      values: [id, attempt],
    });
    return rowCount === 1;
  }

  /**
   * Records a fresh checkout (PAYMENT_MOVES.renewCheckout) when it follows the one read
   * (`attempt - 1`); false when another request renewed it meanwhile or the move is not allowed.
   */
  async renewCheckout(checkout: RenewedCheckout): Promise<boolean> {
    const [formFields, expiresAt, singleUse, served] = checkoutColumns([checkout]);
    const { rowCount } = await this.pool.query({
      name: 'payments-renew-checkout',
      // A reference a provider's report was recorded under is the order followed (judgeProviderReport): a fresh checkout leaves it.
      text: `UPDATE payments SET status = '${PAYMENT_MOVES.renewCheckout.to}', checkout_url = $3, checkout_error = NULL,
                    provider_reference = CASE WHEN provider_status IS NULL THEN COALESCE($4, provider_reference) ELSE provider_reference END,
                    checkout_form_fields = $5::jsonb,
                    checkout_expires_at = $6, checkout_single_use = $7, checkout_served_at = CASE WHEN $7 AND $8 THEN now() END,
                    checkout_attempts = $2
             WHERE id = $1 AND checkout_attempts = $2 - 1 AND status IN (${sqlStatusList(PAYMENT_MOVES.renewCheckout.from)})`,
      values: [
        checkout.id,
        checkout.attempt,
        checkout.checkoutUrl,
        providerIdentifier(checkout.providerReference) ?? null,
        formFields[0],
        expiresAt[0],
        singleUse[0],
        served[0],
      ],
    });
    return rowCount === 1;
  }

  /** creating → checkout_failed with the reason (PAYMENT_MOVES.failCheckout); false when the move is not allowed. */
  async failCheckout(id: string, error: string): Promise<boolean> {
    const { rowCount } = await this.pool.query({
      name: 'payments-fail-checkout',
      text: `UPDATE payments SET status = '${PAYMENT_MOVES.failCheckout.to}', checkout_error = $2
             WHERE id = $1 AND status IN (${sqlStatusList(PAYMENT_MOVES.failCheckout.from)})`,
      values: [id, error.slice(0, 500)],
    });
    return rowCount === 1;
  }
}

/** A payment as its receipt page shows it: no e-mail, payout address or ipn_token. */
export interface PaymentReceiptRecord {
  id: string;
  amount: string;
  currency: string;
  provider: string;
  createdAt: Date;
  providerStatus: ProviderPaymentStatus | null;
  providerReason: string | null;
  /** SHA-256 of its key; null for a payment recorded before keys existed (migration 027). */
  keyHash: Buffer | null;
  /** Second chances taken from it. */
  secondChances: number;
  deposits: ReceiptDepositRecord[];
  /**
   * The payments of the same wallet that attemptThatPaid needs to credit its deposits, oldest
   * first: this one; for each deposit, the attempts whose provider reported its transaction and the
   * latest created since this one before it was seen that reported none; and the wallet's latest
   * two since this one (the attempt the customer chose next). A few index look-ups, however many
   * attempts the wallet has.
   */
  attempts: ReceiptAttemptRecord[];
}

export interface ReceiptAttemptRecord {
  id: string;
  provider: string;
  createdAt: Date;
  /** The transaction its provider reported sending the USDC in; null when it reported none. */
  deliveredTxHash: string | null;
}

export interface ReceiptDepositRecord {
  status: DepositStatus;
  /** Token base units. */
  amount: bigint;
  txHash: string;
  seenAt: Date;
  /** The merchant leg's transaction, once forwarded. */
  forwardedTxHash: string | null;
  /** The merchant's callback answered 2xx. */
  merchantNotified: boolean;
  /** The token of its Transfer, lower-case hex; null in rows no app wrote (the counted token, migration 023). */
  token: string | null;
}

export interface ProviderStatusUpdate {
  /** The providers the webhook may be about: its own, and those running on its account. */
  providers: readonly string[];
  /** How the webhook names the payment (the domain's webhookPaymentLookup says which payment that may be). */
  match: { paymentId?: string; providerReference?: string; walletAddress?: string };
  status: ProviderPaymentStatus;
  rawStatus: string;
  providerReference?: string;
  reason?: string;
  /** The transaction the provider reported sending the USDC in: it decides which attempt paid. */
  txHash?: string;
  /** Where the provider says the order delivers: it must be the payment's wallet (judgeProviderReport). */
  destination?: ReportedDestination;
  /** The provider documents the destination in its reports: charged or paid without it is not trusted. */
  destinationDocumented?: boolean;
  /** The provider reported a refund. */
  refunded?: boolean;
  /** A webhook that signs no time: recorded once (provider_report_events), and only forward. */
  untimed?: boolean;
  /** The provider's id of the notification, where it sends one. */
  eventId?: string;
}

export type ProviderStatusOutcome = 'updated' | 'unchanged' | 'unknown_payment';

export class PaymentReceiptRepository {
  constructor(private readonly pool: Pool) {}

  /**
   * The payment, the deposits into its wallet since it started (a wallet is one order; earlier
   * deposits belong to an earlier payment of it), oldest first, and the wallet's payments that may
   * be credited with them (PaymentReceiptRecord.attempts), in one round trip.
   */
  async findReceipt(paymentId: string): Promise<PaymentReceiptRecord | undefined> {
    const { rows } = await this.pool.query<ReceiptRow>({
      name: 'payment-receipt',
      text: `SELECT p.id, p.amount::text AS amount, p.currency, p.provider, p.created_at, p.provider_status, p.provider_reason,
                    d.status AS deposit_status, d.amount::text AS deposit_amount, d.tx_hash, d.seen_at, d.token,
                    po.tx_hash AS forwarded_tx_hash, cd.status = 'delivered' AS merchant_notified,
                    p.customer_key_hash, p.second_chances,
                    (SELECT json_agg(json_build_object('id', a.id, 'provider', a.provider, 'created_at', a.created_at,
                                                       'provider_tx_hash', a.provider_tx_hash)
                                     ORDER BY a.created_at, a.id)
                     FROM (SELECT DISTINCT ON (c.id) c.* FROM (
                             SELECT p.id, p.provider, p.created_at, p.provider_tx_hash
                             UNION ALL
                             (SELECT l.id, l.provider, l.created_at, l.provider_tx_hash FROM payments l
                              WHERE l.wallet_id = p.wallet_id AND l.created_at >= p.created_at
                              ORDER BY l.created_at DESC, l.id DESC LIMIT 2)
                             UNION ALL
                             SELECT r.id, r.provider, r.created_at, r.provider_tx_hash
                             FROM deposits rd JOIN payments r ON r.provider_tx_hash = rd.tx_hash AND r.wallet_id = rd.wallet_id
                             WHERE rd.wallet_id = p.wallet_id AND rd.seen_at >= p.created_at
                             UNION ALL
                             -- Every attempt at the latest moment before the deposit: a batch records several at one now().
                             SELECT t.id, t.provider, t.created_at, t.provider_tx_hash
                             FROM deposits td JOIN payments t ON t.wallet_id = td.wallet_id AND t.provider_tx_hash IS NULL
                               AND t.created_at = (SELECT max(m.created_at) FROM payments m
                                                   WHERE m.wallet_id = td.wallet_id AND m.provider_tx_hash IS NULL
                                                     AND m.created_at >= p.created_at AND m.created_at <= td.seen_at)
                             WHERE td.wallet_id = p.wallet_id AND td.seen_at >= p.created_at
                           ) c) a) AS attempts
             FROM payments p
             LEFT JOIN deposits d ON d.wallet_id = p.wallet_id AND d.seen_at >= p.created_at
             LEFT JOIN payouts po ON po.deposit_id = d.id AND po.leg = 'merchant'
             LEFT JOIN callback_deliveries cd ON cd.deposit_id = d.id
             WHERE p.id = $1
             ORDER BY d.seen_at, d.id`,
      values: [paymentId],
    });
    const first = rows[0];
    if (!first) return undefined;
    return {
      id: first.id,
      amount: first.amount,
      currency: first.currency.trim(),
      provider: first.provider,
      createdAt: first.created_at,
      providerStatus: first.provider_status,
      providerReason: first.provider_reason,
      keyHash: first.customer_key_hash,
      secondChances: first.second_chances,
      deposits: rows
        .filter((row) => row.deposit_status !== null)
        .map((row) => ({
          status: row.deposit_status as DepositStatus,
          amount: BigInt(row.deposit_amount ?? '0'),
          txHash: row.tx_hash ?? '',
          seenAt: row.seen_at ?? first.created_at,
          forwardedTxHash: row.forwarded_tx_hash,
          merchantNotified: row.merchant_notified === true,
          token: row.token,
        })),
      attempts: (first.attempts ?? []).map((attempt) => ({
        id: attempt.id,
        provider: attempt.provider,
        createdAt: new Date(attempt.created_at),
        deliveredTxHash: attempt.provider_tx_hash,
      })),
    };
  }

  /**
   * Records what a provider says (a webhook, or a look-up's answer), when the payment exists,
   * belongs to one of `providers`, and the domain's judgeProviderReport lets it: the report is about
   * the payment's own order (its pinned order id; the wallet, network and asset it delivers to),
   * and the forward-only rule lets the status move (never from paid, never a charged card reopened
   * but by its refund; a report without a signed time only forward, and only once). The order of
   * the first report recorded is pinned, and followed from then on. Whatever the provider's strings hold (NUL bytes,
   * control characters, megabytes, another type), they are made fit to store first
   * (provider-report in @gateway/domain): this is where provider data enters the database.
   */
  async recordProviderStatus(update: ProviderStatusUpdate): Promise<ProviderStatusOutcome> {
    const lookup = webhookPaymentLookup({
      paymentId: providerIdentifier(update.match.paymentId),
      providerReference: providerIdentifier(update.match.providerReference),
      walletAddress: providerIdentifier(update.match.walletAddress),
    });
    if (lookup.by === 'nothing') return 'unknown_payment';
    const byId = lookup.by === 'payment_id' ? lookup.paymentId : null;
    const reference = lookup.by === 'payment_id' ? null : lookup.providerReference;
    const wallet = lookup.by === 'payment_id' ? null : lookup.walletAddress;
    // A report found by the provider's order id is about that order, whether or not it repeats it.
    const providerReference = providerIdentifier(update.providerReference) ?? reference;
    const rawStatus = providerText(update.rawStatus, PROVIDER_REPORT_LIMITS.rawStatus) ?? null;
    const reason = providerText(update.reason, PROVIDER_REPORT_LIMITS.reason) ?? null;
    const txHash = deliveryTxHash(update.txHash) ?? null;
    const destination = reportedDestination(update.destination);
    return inTransaction(this.pool, async (client) => {
      // One statement, the ways webhookPaymentLookup allows in order of trust (each an index look-up); the row locked for the move.
      const { rows } = await client.query<{
        id: string;
        polygon_address: string;
        provider_status: ProviderPaymentStatus | null;
        provider_reference: string | null;
        found_by: WebhookPaymentFound['by'];
      }>(
        `SELECT p.id, w.polygon_address, p.provider_status, p.provider_reference, found.found_by
         FROM payments p JOIN wallets w ON w.id = p.wallet_id
         JOIN (
           SELECT id, (ARRAY['payment_id', 'provider_reference', 'wallet'])[rank] AS found_by FROM (
             SELECT id, 1 AS rank, created_at FROM payments WHERE id = $2::uuid AND provider = ANY($1::text[])
             UNION ALL
             SELECT id, 2, created_at FROM payments WHERE provider = ANY($1::text[]) AND provider_reference = $3
             UNION ALL
             SELECT p.id, 3, p.created_at FROM payments p JOIN wallets w ON w.id = p.wallet_id
             WHERE w.polygon_address = $4 AND p.provider = ANY($1::text[]) AND p.provider_reference IS NULL
           ) AS candidates
           ORDER BY rank, created_at DESC
           LIMIT 1) AS found ON found.id = p.id
         FOR UPDATE OF p`,
        [update.providers, byId, reference, wallet],
      );
      const current = rows[0];
      if (!current) return 'unknown_payment';
      const untimed = update.untimed === true;
      const verdict = judgeProviderReport(
        {
          walletAddress: current.polygon_address,
          providerStatus: current.provider_status,
          providerReference: current.provider_reference,
          foundBy: current.found_by,
        },
        {
          status: update.status,
          providerReference,
          destination,
          destinationDocumented: update.destinationDocumented === true,
          refunded: update.refunded === true,
          untimed,
        },
      );
      if (verdict.kind === 'not_this_payment') return 'unknown_payment';
      const replayKey = untimed
        ? reportReplayKey({ eventId: providerIdentifier(update.eventId), providerReference, rawStatus: rawStatus ?? '' })
        : undefined;
      if (replayKey !== undefined) {
        const seen = await client.query(
          'INSERT INTO provider_report_events (payment_id, event_key) VALUES ($1, $2) ON CONFLICT DO NOTHING',
          [current.id, replayKey],
        );
        if (seen.rowCount === 0) return 'unchanged';
      }
      if (verdict.kind === 'unchanged') return 'unchanged';
      await client.query(
        `UPDATE payments SET provider_status = $2, provider_raw_status = $3, provider_reference = $4,
                provider_reason = $5, provider_tx_hash = COALESCE($6, provider_tx_hash), provider_updated_at = now()
         WHERE id = $1`,
        [current.id, update.status, rawStatus, verdict.pin, reason, txHash],
      );
      return 'updated';
    });
  }
}

/** The destination a provider reported, each part made fit to compare (a part that is not plain text is not reported). */
function reportedDestination(reported: ReportedDestination | undefined): ReportedDestination | undefined {
  if (!reported) return undefined;
  const parts = {
    address: providerIdentifier(reported.address),
    network: providerIdentifier(reported.network),
    asset: providerIdentifier(reported.asset),
  };
  return Object.values(parts).some((part) => part !== undefined) ? parts : undefined;
}

/** The form fields (JSON), expiry, single-use and served columns of checkouts, each an array in their order. */
function checkoutColumns(checkouts: readonly RecordedCheckout[]): [(string | null)[], (Date | null)[], boolean[], boolean[]] {
  return [
    checkouts.map((c) => (c.formFields ? JSON.stringify(c.formFields) : null)),
    checkouts.map((c) => c.expiresAt ?? null),
    checkouts.map((c) => c.singleUse === true),
    checkouts.map((c) => c.served === true),
  ];
}

interface CheckoutRow {
  id: string;
  polygon_address: string;
  amount: string;
  currency: string;
  provider: string;
  email: string;
  status: PaymentStatus;
  provider_status: ProviderPaymentStatus | null;
  has_deposit: boolean;
  checkout_attempts: number;
  checkout_url: string | null;
  checkout_form_fields: Record<string, string> | null;
  checkout_expires_at: Date | null;
  checkout_single_use: boolean;
  checkout_served_at: Date | null;
  customer_key_hash: Buffer | null;
}

interface ReceiptRow {
  id: string;
  amount: string;
  currency: string;
  provider: string;
  created_at: Date;
  provider_status: ProviderPaymentStatus | null;
  provider_reason: string | null;
  customer_key_hash: Buffer | null;
  second_chances: number;
  deposit_status: string | null;
  deposit_amount: string | null;
  tx_hash: string | null;
  seen_at: Date | null;
  token: string | null;
  forwarded_tx_hash: string | null;
  merchant_notified: boolean | null;
  attempts: { id: string; provider: string; created_at: string; provider_tx_hash: string | null }[] | null;
}
