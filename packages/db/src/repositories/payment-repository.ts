import type { Pool } from 'pg';
import { paymentKeyHashes, RECOVERY_LINK_KEY_HASH } from './recovery-email-repository';
import {
  FINAL_PROVIDER_STATUSES,
  PAYMENT_MOVES,
  providerIdentifier,
  sqlStatusList,
  type DeclineKind,
  type ExpectationBasis,
  type PaymentStatus,
  type ProviderPaymentStatus,
} from '@gateway/domain';

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
  expectation: RecordedExpectation;
  /** Fees on top (migration 038): the USDC its checkout asks the provider to deliver; absent for a checkout of the fiat amount. */
  checkoutUsdc?: bigint;
}

/** What the attempt should bring, as migration 029 records it (domain's attemptExpectation, with the rate it used). */
export interface RecordedExpectation {
  /** The order's USD value, a decimal string with two decimals. */
  amountUsd: string;
  /** Units of the order's currency per 1 USD, as formatRate writes it ("1" for USD), its source and time. */
  usdRate: string;
  usdRateSource: string;
  usdRateAsOf: Date;
  expectedUsdc: bigint;
  basis: ExpectationBasis;
  toleranceBps: number;
  windowEndsAt: Date;
  /**
   * The attempt whose expectation this is, when the new one only pays the rest of its order (migration
   * 033: `completes`): the figures above are then that order's, the window the rest's own.
   */
  completes?: string;
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
export interface PaymentCheckoutRecord extends Omit<NewPayment, 'keyHash' | 'expectation'> {
  /** Its wallet: the order it is an attempt of. */
  walletId: string;
  /** For a rest payment, the attempt whose order it completes (migration 033); null for any other. */
  completes: string | null;
  status: PaymentStatus;
  providerStatus: ProviderPaymentStatus | null;
  /** The kind of the reason of its decline or failure (migration 035); null while it has none. */
  providerDeclineKind: DeclineKind | null;
  /** USDC arrived in the wallet since the payment started. */
  hasDeposit: boolean;
  /** Checkouts the provider gave for it so far. */
  attempts: number;
  /**
   * SHA-256 of the keys that act on it: its own (none for a payment recorded before keys existed,
   * migration 027) and its recovery e-mail's link (migration 036) while that is good.
   */
  keyHash: Buffer[];
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
      // Named where pg_stat_activity shows it: it keeps a statement's first 1024 bytes, and this one's INSERT comes later.
      text: `/* record payments */ WITH input AS (
               SELECT i.id, w.id AS wallet_id, i.amount, i.currency, i.provider, i.email, i.key_hash,
                      i.amount_usd, i.usd_rate, i.usd_rate_source, i.usd_rate_as_of, i.expected_usdc, i.expected_basis,
                      i.tolerance_bps, i.window_ends_at, i.completes, i.checkout_usdc,
                      row_number() OVER (PARTITION BY w.id ORDER BY i.ord) AS place
               FROM unnest($1::uuid[], $2::text[], $3::numeric[], $4::text[], $5::text[], $6::text[], $7::bytea[],
                           $9::numeric[], $10::text[], $11::text[], $12::timestamptz[], $13::numeric[], $14::text[],
                           $15::int[], $16::timestamptz[], $17::uuid[], $18::numeric[])
                 WITH ORDINALITY AS i(id, polygon_address, amount, currency, provider, email, key_hash,
                                      amount_usd, usd_rate, usd_rate_source, usd_rate_as_of, expected_usdc, expected_basis,
                                      tolerance_bps, window_ends_at, completes, checkout_usdc, ord)
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
               INSERT INTO payments (id, wallet_id, amount, currency, provider, email, customer_key_hash,
                                     amount_usd, usd_rate, usd_rate_source, usd_rate_as_of, expected_usdc, expected_basis,
                                     tolerance_bps, window_ends_at, completes, checkout_usdc)
               SELECT i.id, i.wallet_id, i.amount, i.currency, i.provider, i.email, i.key_hash,
                      i.amount_usd, i.usd_rate, i.usd_rate_source, i.usd_rate_as_of, i.expected_usdc, i.expected_basis,
                      i.tolerance_bps, i.window_ends_at, i.completes, i.checkout_usdc
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
        payments.map((p) => p.expectation.amountUsd),
        payments.map((p) => p.expectation.usdRate),
        payments.map((p) => p.expectation.usdRateSource),
        payments.map((p) => p.expectation.usdRateAsOf),
        payments.map((p) => p.expectation.expectedUsdc.toString()),
        payments.map((p) => p.expectation.basis),
        payments.map((p) => p.expectation.toleranceBps),
        payments.map((p) => p.expectation.windowEndsAt),
        payments.map((p) => p.expectation.completes ?? null),
        payments.map((p) => p.checkoutUsdc?.toString() ?? null),
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
      text: `SELECT p.id, p.wallet_id, p.completes, w.polygon_address, p.amount::text AS amount, p.currency, p.provider, p.email,
                    p.status, p.provider_status, p.provider_decline_kind,
                    EXISTS (SELECT 1 FROM deposits d WHERE d.wallet_id = p.wallet_id AND d.seen_at >= p.created_at
                            AND d.status <> 'orphaned') AS has_deposit,
                    p.checkout_attempts, p.checkout_url, p.checkout_form_fields, p.checkout_expires_at, p.checkout_single_use,
                    p.checkout_served_at, p.customer_key_hash, p.checkout_usdc::text AS checkout_usdc, ${RECOVERY_LINK_KEY_HASH('p')}
             FROM payments p JOIN wallets w ON w.id = p.wallet_id
             WHERE p.id = $1`,
      values: [id],
    });
    const row = rows[0];
    if (!row) return undefined;
    return {
      id: row.id,
      walletId: row.wallet_id,
      completes: row.completes,
      polygonAddress: row.polygon_address,
      amount: row.amount,
      currency: row.currency.trim(),
      provider: row.provider,
      email: row.email,
      status: row.status,
      providerStatus: row.provider_status,
      providerDeclineKind: row.provider_decline_kind,
      hasDeposit: row.has_deposit,
      attempts: row.checkout_attempts,
      keyHash: paymentKeyHashes(row.customer_key_hash, row.link_key_hash),
      ...(row.checkout_usdc !== null ? { checkoutUsdc: BigInt(row.checkout_usdc) } : {}),
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
  wallet_id: string;
  completes: string | null;
  polygon_address: string;
  amount: string;
  currency: string;
  provider: string;
  email: string;
  status: PaymentStatus;
  provider_status: ProviderPaymentStatus | null;
  provider_decline_kind: DeclineKind | null;
  has_deposit: boolean;
  checkout_attempts: number;
  checkout_url: string | null;
  checkout_form_fields: Record<string, string> | null;
  checkout_expires_at: Date | null;
  checkout_single_use: boolean;
  checkout_served_at: Date | null;
  checkout_usdc: string | null;
  customer_key_hash: Buffer | null;
  link_key_hash: Buffer | null;
}
