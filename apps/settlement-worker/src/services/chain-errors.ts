import { BaseError, HttpRequestError, SocketClosedError, TimeoutError, WebSocketRequestError } from 'viem';

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
 * error answer, a reverted call). Settlement retries these round after round; anything else
 * (PostgreSQL, a bug) ends the job attempt.
 */
export function isChainError(error: unknown): boolean {
  return error instanceof BaseError;
}
