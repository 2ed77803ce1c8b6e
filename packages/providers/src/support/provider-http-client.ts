import { Agent, request as undiciRequest, type Dispatcher } from 'undici';
import { ProviderCheckoutError, type ProviderFailureKind } from '../provider-errors';
import { abortableSleep } from './abortable-sleep';

/**
 * The one way adapters call a provider's API (sessions, quotes, order look-ups): a shared
 * connection pool, a deadline per call, bounded bodies, and retries that cannot pile up. Retries
 * are drawn from a budget (after Finagle's RetryBudget): every first attempt deposits a fraction
 * of a retry, every retry withdraws one, and a small reserve refills each second. When a
 * provider is down, callers then add a few percent of load, not a multiple of it.
 */

/**
 * What a call is for, a fixed set (a metric label): minting a token, opening a session (or the
 * order a checkout is), a quote, an order's status, the provider's webhook keys. Unnamed, a GET
 * is a status look-up and anything else a session call.
 */
export type ProviderCallName = 'token' | 'session' | 'quote' | 'status' | 'keys';

export interface ProviderHttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  call?: ProviderCallName;
  url: string;
  headers?: Readonly<Record<string, string>>;
  body?: string;
  signal: AbortSignal;
  /** Safe to send twice: a GET, or a POST the provider de-duplicates by an idempotency key. */
  retryable: boolean;
}

export interface ProviderHttpResponse {
  statusCode: number;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  body: string;
}

export interface ProviderHttpClient {
  request(request: ProviderHttpRequest): Promise<ProviderHttpResponse>;
  close(): Promise<void>;
}

export interface ProviderHttpClientOptions {
  /** Deadline of one attempt, connection included. */
  attemptTimeoutMs?: number;
  /** Attempts per call at most (the first included). */
  maxAttempts?: number;
  /** Retries earned per first attempt. */
  retryRatio?: number;
  /** Retries always available per second, whatever the traffic. */
  minRetriesPerSecond?: number;
  /** Largest response body read, in bytes; a longer one fails the call. */
  maxResponseBytes?: number;
  /** Wait before the n-th retry: base · 2^(n-1), with full jitter. */
  backoffBaseMs?: number;
  /** Tests pass an undici MockAgent or a pool to a local fake. */
  dispatcher?: Dispatcher;
  now?: () => number;
}

/** The provider could not be reached or did not answer in time: the customer may try again. */
export class ProviderUnreachableError extends ProviderCheckoutError {
  constructor(message: string, failure: Extract<ProviderFailureKind, 'timeout' | 'network' | 'too_large'> = 'network') {
    super(message, 'unavailable', failure);
    this.name = 'ProviderUnreachableError';
  }
}

const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);

/** Counts in thousandths of a retry, so ten deposits of 0.1 make exactly one. */
export class RetryBudget {
  private static readonly UNIT = 1000;
  private balance: number;
  private refilledAt: number;
  private readonly perDeposit: number;
  private readonly reserve: number;
  private readonly cap: number;

  constructor(
    ratio: number,
    minPerSecond: number,
    private readonly now: () => number,
  ) {
    this.perDeposit = Math.round(ratio * RetryBudget.UNIT);
    this.reserve = minPerSecond * RetryBudget.UNIT;
    // A quiet hour must not bank a storm of retries.
    this.cap = this.reserve + 100 * this.perDeposit;
    this.balance = this.reserve;
    this.refilledAt = now();
  }

  /** A first attempt: earns a fraction of a retry. */
  deposit(): void {
    this.refill();
    this.balance = Math.min(this.balance + this.perDeposit, this.cap);
  }

  /** True (and one retry spent) when a retry is affordable. */
  tryWithdraw(): boolean {
    this.refill();
    if (this.balance < RetryBudget.UNIT) return false;
    this.balance -= RetryBudget.UNIT;
    return true;
  }

  private refill(): void {
    const now = this.now();
    const seconds = Math.floor((now - this.refilledAt) / 1000);
    if (seconds <= 0) return;
    this.refilledAt += seconds * 1000;
    this.balance = Math.max(this.balance, this.reserve);
  }
}

export function createProviderHttpClient(options: ProviderHttpClientOptions = {}): ProviderHttpClient {
  const attemptTimeoutMs = options.attemptTimeoutMs ?? 8000;
  const maxAttempts = options.maxAttempts ?? 3;
  const maxResponseBytes = options.maxResponseBytes ?? 1_000_000;
  const backoffBaseMs = options.backoffBaseMs ?? 200;
  const now = options.now ?? Date.now;
  const ownAgent = options.dispatcher ? undefined : new Agent({ connect: { timeout: attemptTimeoutMs }, keepAliveTimeout: 30_000 });
  const dispatcher = options.dispatcher ?? ownAgent!;
  const budget = new RetryBudget(options.retryRatio ?? 0.1, options.minRetriesPerSecond ?? 5, now);

  async function attempt(request: ProviderHttpRequest): Promise<ProviderHttpResponse> {
    const signal = AbortSignal.any([request.signal, AbortSignal.timeout(attemptTimeoutMs)]);
    const response = await undiciRequest(request.url, {
      method: request.method,
      headers: { 'user-agent': 'usdc-card-gateway', ...request.headers },
      ...(request.body !== undefined ? { body: request.body } : {}),
      signal,
      dispatcher,
      headersTimeout: attemptTimeoutMs,
      bodyTimeout: attemptTimeoutMs,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > maxResponseBytes) {
        response.body.destroy();
        throw new ProviderUnreachableError(`${hostOf(request.url)} answered with more than ${maxResponseBytes} bytes`, 'too_large');
      }
      chunks.push(chunk as Buffer);
    }
    return { statusCode: response.statusCode, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') };
  }

  return {
    async request(request) {
      budget.deposit();
      for (let attemptNo = 1; ; attemptNo++) {
        let outcome: ProviderHttpResponse | Error;
        try {
          outcome = await attempt(request);
        } catch (error) {
          if (request.signal.aborted)
            throw new ProviderUnreachableError(`call to ${hostOf(request.url)} given up (${describe(request.signal.reason)})`, 'timeout');
          outcome =
            error instanceof ProviderUnreachableError
              ? error
              : new ProviderUnreachableError(`${hostOf(request.url)} did not answer: ${describe(error)}`, failureOf(error));
        }
        const retry =
          request.retryable &&
          attemptNo < maxAttempts &&
          (outcome instanceof Error || RETRYABLE_STATUS.has(outcome.statusCode)) &&
          budget.tryWithdraw();
        if (!retry) {
          if (outcome instanceof Error) throw outcome;
          return outcome;
        }
        await abortableSleep(Math.random() * backoffBaseMs * 2 ** (attemptNo - 1), request.signal);
      }
    },
    async close() {
      await ownAgent?.close();
    },
  };
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the provider';
  }
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/**
 * An attempt that ran out of its own time is a timeout; any other failure to get an answer is the
 * network's. Read by name and code, not instanceof: undici's DOMException may come from another realm.
 */
function failureOf(error: unknown): 'timeout' | 'network' {
  const { name, code } = (typeof error === 'object' && error !== null ? error : {}) as { name?: unknown; code?: unknown };
  return name === 'TimeoutError' || (typeof code === 'string' && TIMEOUT_CODES.has(code)) ? 'timeout' : 'network';
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === 'TimeoutError') return 'timed out';
  return (error as NodeJS.ErrnoException).code ?? error.message;
}
