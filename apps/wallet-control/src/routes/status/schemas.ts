import { Type } from '@sinclair/typebox';
import { MAX_ORDER_TOLERANCE_BPS, NEEDS_ATTENTION_REASONS, ORDER_STATES } from '@gateway/domain';
import { CALLBACK_LOG_LIMITS } from '../../services/payment-status-service';

const nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const usdc = (description: string) => Type.String({ description: `${description}; USDC as an exact decimal string`, examples: ['24.75'] });
const txHash = (description: string) => Type.String({ description, pattern: '^0x[0-9a-f]{64}$' });

export const paymentStatusQuery = Type.Object({
  ipn_token: Type.String({
    description: 'the ipn_token Create Wallet returned for the wallet (also in every callback)',
    pattern: '^[A-Za-z0-9_-]{16,128}$',
    examples: ['IJM9GLtXq0m1cS3aZl9m4b8wYpV2Rr7o'],
  }),
});

const deposit = Type.Object(
  {
    status: Type.String({
      description:
        'seen (on chain, not final yet), final (final, about to be forwarded), forwarding (payout in progress), forwarded (paid ' +
        'to the payout wallet), held (below the dust threshold: paid out with the next deposit into the wallet, or by an operator ' +
        'sweep), swept (held dust paid out by the payout of a later deposit, whose callback reported it), needs_attention (the ' +
        'token refuses the payout, see attention_reason: the gateway operator has to act before it is forwarded), ' +
        'held_for_operator (paid in the other USDC, USDC.e, which this gateway does not settle: held for the gateway operator, ' +
        'the merchant is not paid and gets no callback for it), paid_by_operator (such a deposit, paid to the payout wallet by ' +
        'the gateway operator by hand; no callback is sent for it), orphaned (dropped by a chain reorganisation; never counts)',
      examples: ['forwarded'],
    }),
    attention_reason: Type.Union([Type.Union(NEEDS_ATTENTION_REASONS.map((reason) => Type.Literal(reason))), Type.Null()], {
      description:
        'while needs_attention, why the payout cannot go through as planned: payout_address_blacklisted (USDC refuses transfers ' +
        'to the payout wallet), fee_address_blacklisted, affiliate_address_blacklisted, temporary_wallet_blacklisted, ' +
        'authorization_cancelled, insufficient_balance (the temporary wallet holds less than the deposit), transfer_reverted; ' +
        'null otherwise',
      examples: [null],
    }),
    amount: usdc('what the deposit brought into the temporary wallet, in its coin'),
    coin: Type.Union([Type.Literal('polygon_usdc'), Type.Literal('polygon_usdc_e')], {
      description:
        'the token of the transfer: polygon_usdc (the USDC this gateway settles) or polygon_usdc_e (the other Polygon USDC, USDC.e, ' +
        'held for the operator)',
      examples: ['polygon_usdc'],
    }),
    token_address: Type.String({ description: 'the token contract of the transfer (EIP-55)' }),
    note: nullable(
      Type.String({
        description:
          'what the status means for the merchant, in words, where it needs them (held_for_operator, paid_by_operator); null otherwise',
      }),
    ),
    value_forwarded_coin: nullable(usdc('what was forwarded to the payout wallet; null until forwarded')),
    fee_coin: nullable(usdc('platform fee plus affiliate share taken from it; null until forwarded')),
    txid_in: txHash('the transaction that paid USDC into the temporary wallet'),
    txid_out: nullable(txHash('the transaction that paid the payout wallet; null until forwarded')),
    seen_at: Type.String({ format: 'date-time', description: 'when the gateway first saw the deposit' }),
    forwarded_at: nullable(Type.String({ format: 'date-time', description: 'when it was forwarded; null until then' })),
    payment_id: nullable(
      Type.String({
        description:
          'the payment (Process Payment call, or second chance on the receipt page) credited with this deposit: the latest one on ' +
          'the wallet created before the deposit was seen; null when none is (a deposit before any payment, or older than the ' +
          'payments listed)',
      }),
    ),
    provider: nullable(
      Type.String({ description: "that payment's on-ramp provider: the one that delivered the USDC; null with payment_id" }),
    ),
  },
  { description: 'one USDC transfer (either Polygon USDC) into the temporary wallet' },
);

const payment = Type.Object(
  {
    payment_id: Type.String({ description: 'the Process Payment id (also the receipt page /payment/<id>)' }),
    provider: Type.String({ description: 'the on-ramp provider the customer was sent to' }),
    amount: Type.String({ description: 'the amount asked for, decimal', examples: ['49.99'] }),
    currency: Type.String({ description: 'its currency', examples: ['USD'] }),
    provider_status: nullable(
      Type.String({
        description:
          "what the provider's signed webhook last said: pending, charged (card charged, USDC not sent yet), " +
          'paid (the provider sent the USDC), declined or failed; null when it has said nothing',
      }),
    ),
    provider_reference: nullable(Type.String({ description: "the provider's own order id, for support; null until its webhook" })),
    created_at: Type.String({ format: 'date-time' }),
    provider_updated_at: nullable(Type.String({ format: 'date-time', description: 'when the provider status last changed' })),
  },
  { description: 'one Process Payment call on this wallet (no customer e-mail)' },
);

const callbackAttempt = Type.Object(
  {
    attempt_no: Type.Integer({ description: 'the number of the attempt, from 1, counting on across resends' }),
    started_at: Type.String({ format: 'date-time' }),
    duration_ms: Type.Integer({ description: 'from the start of the request to the end of the answer (or the error)' }),
    http_status: Type.Union([Type.Integer(), Type.Null()], {
      description: "the shop's HTTP status (any 2xx delivers); null when it never answered (see error_code)",
      examples: [500],
    }),
    error_code: nullable(
      Type.String({
        description:
          'why the attempt did not deliver, e.g. http_error (an answer other than 2xx), timeout, connect_failed, dns_failed, ' +
          'ssrf_refused (the callback host is not a public address), callback_released (the operator released the callback URL); ' +
          'null for a delivered attempt (or response_too_large: delivered, the answer longer than the gateway reads)',
        examples: ['http_error'],
      }),
    ),
    response_excerpt: nullable(
      Type.String({
        description:
          `the start of the shop's answer as recorded (the gateway keeps the first 1 KiB), cut to its first ${CALLBACK_LOG_LIMITS.excerptChars} ` +
          'characters; empty for ' +
          'an empty answer, null when none was recorded',
        examples: ['ok'],
      }),
    ),
    response_excerpt_truncated: Type.Boolean({ description: 'the recorded answer goes on past response_excerpt' }),
  },
  { description: 'one try at sending the callback' },
);

const callbackDelivery = Type.Object(
  {
    delivery_id: Type.String({
      format: 'uuid',
      description: 'the x-gateway-delivery-id header of every attempt (and resend) of this callback',
    }),
    status: Type.String({
      description:
        'pending (to be sent, or retried at next_attempt_at), delivered (the shop answered 2xx), failed (given up on after the ' +
        'retries); resend-callback.php puts the latest one back to pending',
      examples: ['delivered'],
    }),
    txid_in: txHash('the deposit the callback reports (deposits[].txid_in)'),
    created_at: Type.String({ format: 'date-time', description: 'when the callback was written: the deposit had just been forwarded' }),
    delivered_at: nullable(Type.String({ format: 'date-time', description: 'when the shop last answered it 2xx; null until then' })),
    next_attempt_at: nullable(
      Type.String({
        format: 'date-time',
        description: 'while pending, when the next attempt is due (or, while one is under way, when it is given up); null otherwise',
      }),
    ),
    attempt_count: Type.Integer({ description: `attempts made in all (attempts lists the newest ${CALLBACK_LOG_LIMITS.attempts})` }),
    resend_count: Type.Integer({ description: 'how many times it was sent again on request (resend-callback.php, or the operator)' }),
    resent_at: nullable(Type.String({ format: 'date-time', description: 'when it was last sent again on request; null if never' })),
    attempts: Type.Array(callbackAttempt, { description: `its newest attempts first, at most ${CALLBACK_LOG_LIMITS.attempts}` }),
  },
  { description: 'one callback: the one sent for a forwarded deposit, with its attempts' },
);

const callbackLog = Type.Object(
  {
    delivery_count: Type.Integer({ description: 'how many callbacks the wallet has in all' }),
    deliveries: Type.Array(callbackDelivery, { description: `newest first, at most ${CALLBACK_LOG_LIMITS.deliveries}` }),
  },
  {
    description:
      `the wallet's callbacks (one per forwarded deposit) and how each went, newest first: at most ${CALLBACK_LOG_LIMITS.deliveries} ` +
      `callbacks, the newest ${CALLBACK_LOG_LIMITS.attempts} attempts of each and ${CALLBACK_LOG_LIMITS.excerptChars} characters of ` +
      "each answer; the gateway's operator has the whole story",
  },
);

const orderAttempt = Type.Object(
  {
    payment_id: Type.String({ description: 'the Process Payment id (also in payments, and the receipt page /payment/<id>)' }),
    provider: Type.String({ description: 'the on-ramp provider of that attempt' }),
    amount: Type.String({ description: 'the order as that attempt asked for it, decimal, in its currency', examples: ['49.99'] }),
    currency: Type.String({ description: 'its currency', examples: ['EUR'] }),
    amount_usd: Type.String({
      description: "the order's value in USD at the attempt's exchange rate (the amount itself for USD), decimal",
      examples: ['54.12'],
    }),
  },
  { description: 'the payment attempt whose expectation the order is judged by: the latest one that recorded one' },
);

const order = Type.Object(
  {
    total_coin: usdc(
      "what the order's final deposits brought so far (every deposit the chain made final, forwarded or not; not one still " +
        'unconfirmed, reorganised away or held in the other USDC): the order_total_coin of the callbacks',
    ),
    expected_coin: nullable(
      usdc(
        'what the order should bring, recorded by its payment attempt (judged_by): the order_expected_coin of the callbacks; null ' +
          'when no attempt recorded one',
      ),
    ),
    expected_basis: Type.Union([Type.Literal('quote'), Type.Literal('estimate'), Type.Null()], {
      description:
        "where expected_coin comes from: quote (the provider's own quote) or estimate (the order's USD value less the middle of " +
        "the provider's documented fees); null with expected_coin",
      examples: ['quote'],
    }),
    state: Type.Union([...ORDER_STATES.map((state) => Type.Literal(state)), Type.Null()], {
      description:
        'awaiting (nothing final yet), paid (total_coin within tolerance_bps of expected_coin), underpaid (more than that short: ' +
        'the customer can pay the rest into the same wallet), overpaid (more than that over), late (some of it arrived after ' +
        'window_ends_at: the merchant decides); the order_state of the callbacks; null when no attempt recorded an expectation',
      examples: ['paid'],
    }),
    missing_coin: nullable(
      usdc(
        'what the order still lacks (expected_coin less total_coin) while awaiting, underpaid, or late and short; "0" otherwise ' +
          '(also when paid within the tolerance); null with state',
      ),
    ),
    excess_coin: nullable(
      usdc(
        'what arrived beyond expected_coin (total_coin less expected_coin) while overpaid, or late and over; "0" otherwise; null with state',
      ),
    ),
    late_coin: nullable(usdc('the part of total_coin that arrived after window_ends_at; null with state')),
    tolerance_bps: Type.Union([Type.Integer({ minimum: 0, maximum: MAX_ORDER_TOLERANCE_BPS }), Type.Null()], {
      description:
        "how far from expected_coin still counts as paid, basis points (100 = 1 %): the gateway's, narrowed by the wallet's own " +
        'order_tolerance_bps where Create Wallet was given one; null with state',
      examples: [100],
    }),
    window_ends_at: nullable(
      Type.String({
        format: 'date-time',
        description: "when the order's window closes: a deposit seen after it is late; null with state",
      }),
    ),
    judged_by: Type.Union([orderAttempt, Type.Null()], { description: 'the attempt the order is judged by; null with state' }),
    reason: Type.String({
      description:
        'why the order stands where it does, in a sentence for a person (support, an order note); not for machines, whose words ' +
        'are the fields above',
      examples: ["49.24015 USDC arrived, within 100 basis points of 49.3 USDC expected (the provider's quote)"],
    }),
  },
  {
    description:
      'the order (a wallet is one order) as the callbacks and the receipt page judge it: its total so far and, when a payment ' +
      'attempt recorded what it should bring, its state and figures; with no such attempt only total_coin is set and the rest ' +
      'is null',
  },
);

export const paymentStatusBody = Type.Object(
  {
    status: Type.Union([Type.Literal('paid'), Type.Literal('unpaid')], {
      description:
        "paid once a deposit into the wallet has been forwarded to the payout wallet and the order's state (order.state) is paid or " +
        'overpaid; an underpaid or late order is unpaid. An order not judged (order.state null) is paid once a deposit was forwarded',
    }),
    value_coin: usdc('sum of the forwarded deposits ("0" when unpaid)'),
    value_forwarded_coin: usdc('sum paid to the payout wallet for them'),
    fee_coin: usdc('sum of the platform fees and affiliate shares taken from them'),
    txid_in: nullable(txHash('the latest forwarded deposit: its transaction into the temporary wallet; null when unpaid')),
    txid_out: nullable(txHash('the latest forwarded deposit: the transaction that paid the payout wallet; null when unpaid')),
    coin: Type.Literal('polygon_usdc'),
    polygon_address_in: Type.String({ description: 'the plain temporary wallet address' }),
    payout_address: Type.String({ description: 'the payout wallet (EIP-55)' }),
    callback_url: Type.String({ description: 'the callback URL registered with the wallet' }),
    deposits: Type.Array(deposit, { description: 'every USDC transfer into the wallet, newest first (at most 100)' }),
    deposit_count: Type.Integer({ description: 'how many deposits the wallet has in all' }),
    payments: Type.Array(payment, {
      description: 'Process Payment calls on this wallet, newest first (at most 20), with the provider status',
    }),
    callback_log: callbackLog,
    order,
  },
  { description: 'what the gateway knows about the payments into one temporary wallet' },
);
