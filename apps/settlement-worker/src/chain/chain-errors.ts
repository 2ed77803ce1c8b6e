import {
  BaseError,
  ContractFunctionRevertedError,
  decodeErrorResult,
  ExecutionRevertedError,
  HttpRequestError,
  SocketClosedError,
  TimeoutError,
  WebSocketRequestError,
  type Hex,
} from 'viem';

/** The node could not be reached or did not answer in time (as opposed to answering with an error). */
export function isTransportError(error: unknown): boolean {
  return (
    error instanceof BaseError &&
    error.walk(
      (cause) =>
        cause instanceof HttpRequestError ||
        cause instanceof TimeoutError ||
        cause instanceof SocketClosedError ||
        cause instanceof WebSocketRequestError,
    ) !== null
  );
}

/**
 * Any failure of a chain request (viem raises BaseError for all of them: unreachable node, an
 * error answer, a reverted call). Settlement retries these round after round, except a revert
 * classified as one that will not succeed (see classifyTokenRevert); anything else (PostgreSQL, a
 * bug) ends the job attempt.
 */
export function isChainError(error: unknown): boolean {
  return error instanceof BaseError;
}

/**
 * What the token's revert says about a payout leg, in FiatTokenV2's words (circlefin/stablecoin-evm:
 * Blacklistable, Pausable, EIP3009, FiatTokenV1 `_transfer`):
 *  - blacklisted: `from` or `to` is on the blacklist (which one, the caller asks the token);
 *  - paused: nothing moves until Circle unpauses;
 *  - insufficient_balance: the temporary wallet holds less than the leg;
 *  - authorization_expired / authorization_used_or_canceled: the authorization's state, which the
 *    next round reads and acts on (renewal, or the transaction that used it);
 *  - other: a revert settlement does not know (a bad signature, a token upgrade).
 */
export type TokenRevert =
  | 'blacklisted'
  | 'paused'
  | 'insufficient_balance'
  | 'authorization_expired'
  | 'authorization_used_or_canceled'
  | 'other';

export interface ClassifiedRevert {
  revert: TokenRevert;
  /** The revert reason as the token gave it ('' when it gave none). */
  reason: string;
}

const REVERT_REASONS: readonly [RegExp, TokenRevert][] = [
  [/^Blacklistable: account is blacklisted$/, 'blacklisted'],
  [/^Pausable: paused$/, 'paused'],
  [/^ERC20: transfer amount exceeds balance$/, 'insufficient_balance'],
  [/^FiatTokenV2: authorization is expired$/, 'authorization_expired'],
  [/^FiatTokenV2: authorization is used or canceled$/, 'authorization_used_or_canceled'],
];

/**
 * The token's revert in a failed chain request (eth_estimateGas, eth_call, or a node that
 * simulates eth_sendRawTransaction), or undefined when the request failed otherwise (unreachable
 * node, timeout, nonce too low or too high, underpriced, replacement, any other RPC error): those
 * are retried. The reason is read from the revert data (Error(string)) when the node returns it,
 * else from the node's "execution reverted: …" message.
 */
export function classifyTokenRevert(error: unknown): ClassifiedRevert | undefined {
  if (!(error instanceof BaseError) || isTransportError(error)) return undefined;
  const reverted = error.walk(isRevert) as Reverted | null;
  if (!reverted) return undefined;
  const reason = revertReason(error, reverted);
  const known = REVERT_REASONS.find(([pattern]) => pattern.test(reason));
  return { revert: known?.[1] ?? 'other', reason };
}

// viem maps a revert to ExecutionRevertedError where it wraps the call (estimateGas, call); a
// public client's sendRawTransaction passes the node's answer on as it came (code 3, or a message).
type Reverted = ExecutionRevertedError | ContractFunctionRevertedError | (BaseError & { code?: number });

function isRevert(cause: unknown): boolean {
  if (cause instanceof ContractFunctionRevertedError) return true;
  if (!(cause instanceof BaseError)) return false;
  // geth words a sender short of gas money like a revert, and viem files it as one: not the token's.
  if (/gas required exceeds allowance/i.test(cause.details ?? '')) return false;
  return (
    cause instanceof ExecutionRevertedError ||
    (cause as { code?: number }).code === ExecutionRevertedError.code ||
    /^execution reverted\b/i.test(cause.details ?? '')
  );
}

function revertReason(error: BaseError, reverted: Reverted): string {
  if (reverted instanceof ContractFunctionRevertedError && reverted.reason) return reverted.reason;
  const data = revertData(error);
  if (data) {
    try {
      const decoded = decodeErrorResult({ data });
      if (decoded.errorName === 'Error' && typeof decoded.args?.[0] === 'string') return decoded.args[0];
    } catch {
      // Not Error(string) (a custom error, a panic): the node's message says what it can.
    }
  }
  return (reverted.details ?? '').replace(/^execution reverted:?\s*/i, '').trim();
}

function revertData(error: BaseError): Hex | undefined {
  let data: Hex | undefined;
  error.walk((cause) => {
    const candidate = (cause as { data?: unknown }).data;
    if (typeof candidate === 'string' && /^0x[0-9a-fA-F]{8,}$/.test(candidate)) data = candidate as Hex;
    return false;
  });
  return data;
}
