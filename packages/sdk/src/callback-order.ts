import {
  verifyCallbackSignature,
  type CallbackSignatureFailure,
  type VerifiedCallback,
  type VerifyCallbackSignatureInput,
} from './callback-signature';
import { usdcBaseUnits } from './usdc-amount';

/**
 * What the gateway says of an order (a wallet is one order), as its callbacks' `order_state` has it:
 * - `awaiting`: nothing final has arrived yet;
 * - `paid`: what arrived is within the gateway's tolerance of what the order should bring;
 * - `underpaid` / `overpaid`: it is more than the tolerance short of / over it (an underpaid customer
 *   can pay the rest into the same wallet: a later callback then says `paid`);
 * - `late`: some of it arrived after the order's window closed (yours to decide: ship, refund, cancel).
 */
export type CallbackOrderState = 'awaiting' | 'paid' | 'underpaid' | 'overpaid' | 'late';

const ORDER_STATES: ReadonlySet<string> = new Set<CallbackOrderState>(['awaiting', 'paid', 'underpaid', 'overpaid', 'late']);

const isOrderState = (value: string | undefined): value is CallbackOrderState => value !== undefined && ORDER_STATES.has(value);

export interface VerifyCallbackOrderInput extends Omit<VerifyCallbackSignatureInput, 'expectedAmount' | 'ipnToken'> {
  /**
   * The `ipn_token` Create Wallet answered for this order: required here, because the figures are
   * the wallet's, and the callback's `ipn_token` must be it (`ipn_token_mismatch`). Not a non-empty
   * string: a TypeError.
   */
  ipnToken: string;
  /**
   * The least USDC this order may be expected to bring into its wallet, as a decimal string ("18.6165";
   * at most 6 decimals): your price in USD less the largest on-ramp fee you accept. The gateway judges
   * the order against what the customer's latest payment attempt expected, and that attempt's amount
   * is the one in the payment link, which the customer's browser carries (and some providers let the
   * customer change on their page): whoever pays 1 USD on a link edited to 1 USD is `paid`. A callback
   * whose `order_expected_coin` is below this fails with `expectation_below_minimum`, compared exactly
   * in base units. Required; `false` opts out explicitly, for a shop that compares `expected` itself.
   * Anything else: a TypeError.
   */
  minimumExpected: string | false;
}

export type CallbackOrderFailure =
  /** As verifyCallbackSignature's (its `amount_below_expected` is not checked here: `minimumExpected` is). */
  | Exclude<CallbackSignatureFailure, 'amount_below_expected'>
  /**
   * Everything else held, but the callback carries no order figures (a gateway older than them, or
   * an order that no payment attempt gave an expectation, e.g. USDC sent straight to the wallet), or
   * none it can read: check this deposit alone with `verifyCallbackSignature` and `expectedAmount`.
   */
  | 'no_order_figures'
  /**
   * Everything else held, but the gateway expected less of this order than `minimumExpected`: the
   * payment attempt was made for less than your price. Record it, answer 2xx, do not ship.
   */
  | 'expectation_below_minimum';

/** The order as the gateway stood when this callback's deposit was forwarded, read from the signed URL. */
export interface CallbackOrder {
  state: CallbackOrderState;
  /** Treat the order as paid: its state is `paid` or `overpaid` (and its expectation is at least `minimumExpected`). */
  paid: boolean;
  /** The sum of the order's final deposits so far (`order_total_coin`), USDC as signed ("25.000001"), before any fee. */
  total: string;
  totalBaseUnits: bigint;
  /** What the order should bring (`order_expected_coin`), USDC as signed. */
  expected: string;
  expectedBaseUnits: bigint;
}

export type VerifyCallbackOrderResult = (VerifiedCallback & { order: CallbackOrder }) | { ok: false; reason: CallbackOrderFailure };

/**
 * The order-level check: the callback as verifyCallbackSignature checks it (signature, time,
 * `address_out`, `ipn_token`), then what it says of the whole order, so an order paid in two
 * transfers is paid when the second one's callback says so (a deposit's own `value_coin` is only
 * part of it). Each order figure must appear once in the signed URL (the gateway appends them and
 * drops any merchant parameter of their names). Callbacks can arrive out of order (a retry of an
 * older one): the order's latest word is the callback with the largest `totalBaseUnits`.
 * Throws only for a configuration error, as verifyCallbackSignature does.
 */
export function verifyCallbackOrder({ ipnToken, minimumExpected, ...input }: VerifyCallbackOrderInput): VerifyCallbackOrderResult {
  if (typeof ipnToken !== 'string' || ipnToken === '') {
    throw new TypeError("ipnToken must be the ipn_token Create Wallet answered for this order's wallet");
  }
  // undefined for false (the caller compares the expectation itself) and for anything not an amount.
  const minimum = usdcBaseUnits(minimumExpected);
  if (minimumExpected !== false && minimum === undefined) {
    throw new TypeError(
      "minimumExpected must be the least USDC this order may be expected to bring, as a decimal string (e.g. '18.6165', at most 6 " +
        'decimals), or false to compare the expectation yourself',
    );
  }
  const verified = verifyCallbackSignature({ ...input, ipnToken, expectedAmount: false });
  // With expectedAmount false it never answers amount_below_expected.
  if (!verified.ok) return verified as { ok: false; reason: CallbackOrderFailure };
  // Verified, so the URL parsed: address_out was read from it.
  const query = new URL(input.url).searchParams;
  const [state, total, expected] = ['order_state', 'order_total_coin', 'order_expected_coin'].map((name) => {
    const values = query.getAll(name);
    return values.length === 1 ? values[0]! : undefined;
  });
  const totalBaseUnits = usdcBaseUnits(total);
  const expectedBaseUnits = usdcBaseUnits(expected);
  if (!isOrderState(state) || totalBaseUnits === undefined || expectedBaseUnits === undefined) {
    return { ok: false, reason: 'no_order_figures' };
  }
  if (minimum !== undefined && expectedBaseUnits < minimum) return { ok: false, reason: 'expectation_below_minimum' };
  return {
    ...verified,
    order: {
      state,
      paid: state === 'paid' || state === 'overpaid',
      total: total!,
      totalBaseUnits,
      expected: expected!,
      expectedBaseUnits,
    },
  };
}
