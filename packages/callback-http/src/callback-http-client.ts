import type { LookupFunction } from 'node:net';
import { Agent } from 'undici';
import { createAddressPolicy, SsrfRefusedError } from './address-policy';
import { createGuardedConnector, DnsLookupError } from './guarded-connector';

export const BODY_EXCERPT_BYTES = 1024;

export interface CallbackHttpClientOptions {
  /**
   * DNS lookup, TCP and TLS. The three timeouts run on undici's coarse timer and can fire up to
   * about a second late, which does not matter at callback scale.
   */
  connectTimeoutMs: number;
  /** From the request being sent to the end of the response headers. */
  headersTimeoutMs: number;
  /** Longest silence allowed between two chunks of the body. */
  bodyTimeoutMs: number;
  /**
   * The whole attempt, from the first DNS lookup to the last byte of the body: a merchant that
   * answers a byte at a time, never silent for bodyTimeoutMs, is cut off here. Exact (Node's own timer).
   */
  attemptTimeoutMs: number;
  /** Reading stops (and the connection is dropped) past this many body bytes. */
  maxResponseBytes: number;
  /** Ranges let through despite the address policy, e.g. ['127.0.0.0/8', '::1/128'] for the local stack. */
  allowedCidrs?: readonly string[];
  userAgent: string;
  /** Replaces dns.lookup (tests resolve names to chosen addresses with it). */
  lookup?: LookupFunction;
}

export type CallbackHttpErrorCode =
  | 'invalid_url'
  | 'ssrf_refused'
  | 'dns_failed'
  | 'timeout'
  | 'connect_failed'
  | 'request_failed'
  | 'response_too_large'
  | 'http_error';

export interface CallbackHttpError {
  code: CallbackHttpErrorCode;
  message: string;
  retryable: boolean;
}

export interface CallbackHttpResult {
  /** The merchant answered 2xx: the callback is delivered. */
  ok: boolean;
  statusCode?: number;
  durationMs: number;
  /** The first BODY_EXCERPT_BYTES of the body as UTF-8 (a character cut at the end is dropped). */
  bodyExcerpt: string;
  /**
   * Why the attempt failed. On an ok result it can only be `response_too_large`: a note that
   * reading stopped early, never a reason to send again.
   */
  error?: CallbackHttpError;
}

export interface CallbackHttpClient {
  /** Never rejects: every network, policy and HTTP problem comes back as a result. */
  get(url: string, headers?: Readonly<Record<string, string>>): Promise<CallbackHttpResult>;
  close(): Promise<void>;
}

// Failures before any request was sent: TCP or TLS (the merchant's host, not its app). Name
// resolution fails earlier, as a DnsLookupError from the guarded connector's lookup.
const CONNECT_ERROR_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'ETIMEDOUT', 'EPROTO']);
const TLS_ERROR_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_)/;

/**
 * A GET client for merchant callbacks that never connects to an internal address (see
 * createAddressPolicy), never follows redirects and never reads more than maxResponseBytes.
 */
export function createCallbackHttpClient(options: CallbackHttpClientOptions): CallbackHttpClient {
  const agent = new Agent({
    connect: createGuardedConnector({
      connectTimeoutMs: options.connectTimeoutMs,
      policy: createAddressPolicy(options.allowedCidrs ?? []),
      lookup: options.lookup,
    }),
    headersTimeout: options.headersTimeoutMs,
    bodyTimeout: options.bodyTimeoutMs,
  });
  return {
    get: (url, headers = {}) => sendGet(agent, options, url, headers),
    close: () => agent.close(),
  };
}

async function sendGet(
  agent: Agent,
  options: CallbackHttpClientOptions,
  url: string,
  headers: Readonly<Record<string, string>>,
): Promise<CallbackHttpResult> {
  const startedAt = performance.now();
  const elapsedMs = () => Math.round(performance.now() - startedAt);

  const urlProblem = problemWithUrl(url);
  if (urlProblem !== undefined) {
    const error: CallbackHttpError = { code: 'invalid_url', message: urlProblem, retryable: false };
    return { ok: false, durationMs: elapsedMs(), bodyExcerpt: '', error };
  }
  const target = new URL(url);

  const body = new CappedBodyReader(options.maxResponseBytes);
  let statusCode: number | undefined;
  // One deadline for the whole attempt: aborting ends the connect, the wait for headers or the
  // body being read, whichever is under way.
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), options.attemptTimeoutMs);
  try {
    const response = await agent.request({
      origin: target.origin,
      path: `${target.pathname}${target.search}`,
      method: 'GET',
      headers: withUserAgent(headers, options.userAgent),
      signal: deadline.signal,
    });
    statusCode = response.statusCode;
    await body.read(response.body);
  } catch (error) {
    // A body that stalls or drips after a 2xx lands here too: the answer never completed, so it
    // is not counted as delivered; merchants deduplicate retries by delivery id.
    const failure = deadline.signal.aborted
      ? { code: 'timeout' as const, message: `no complete answer within ${options.attemptTimeoutMs} ms`, retryable: true }
      : describeFailure(error, options);
    return { ok: false, statusCode, durationMs: elapsedMs(), bodyExcerpt: body.excerpt(), error: failure };
  } finally {
    clearTimeout(timer);
  }

  const answered = { statusCode, durationMs: elapsedMs(), bodyExcerpt: body.excerpt() };
  if (statusCode < 200 || statusCode >= 300) {
    return { ok: false, ...answered, error: httpError(statusCode, target, body.tooLarge) };
  }
  if (!body.tooLarge) return { ok: true, ...answered };
  // The merchant did answer 2xx; an oversized body is its business and does not undo delivery.
  const message = `body longer than ${options.maxResponseBytes} bytes, reading stopped`;
  return { ok: true, ...answered, error: { code: 'response_too_large', message, retryable: false } };
}

/** Keeps the first BODY_EXCERPT_BYTES of a body and stops reading past maxBytes. */
class CappedBodyReader {
  tooLarge = false;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private receivedBytes = 0;

  constructor(private readonly maxBytes: number) {}

  async read(body: AsyncIterable<Buffer>): Promise<void> {
    for await (const chunk of body) {
      if (this.headBytes < BODY_EXCERPT_BYTES) {
        const part = chunk.subarray(0, BODY_EXCERPT_BYTES - this.headBytes);
        this.head.push(part);
        this.headBytes += part.length;
      }
      this.receivedBytes += chunk.length;
      if (this.receivedBytes > this.maxBytes) {
        this.tooLarge = true;
        // Leaving the loop destroys the body, which aborts the request and drops the connection.
        return;
      }
    }
  }

  excerpt(): string {
    // Streaming mode holds back a character cut at the end instead of printing U+FFFD.
    return new TextDecoder().decode(Buffer.concat(this.head), { stream: true });
  }
}

function problemWithUrl(url: string): string | undefined {
  if (!URL.canParse(url)) return 'not an absolute URL';
  const { protocol } = new URL(url);
  if (protocol === 'http:' || protocol === 'https:') return undefined;
  return `only http and https callbacks are allowed, not ${protocol}`;
}

function withUserAgent(headers: Readonly<Record<string, string>>, userAgent: string): Record<string, string> {
  // Lower-cased so that a caller's "User-Agent", in any case, is replaced by ours rather than sent twice.
  const lowerCased = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  return { ...lowerCased, 'user-agent': userAgent };
}

/**
 * Every non-2xx is retryable, 4xx and 410 Gone included: a missed payment notice costs more than
 * bounded retries. How long is the attempt policy's (@gateway/domain): a refusal (a 4xx other than
 * 408, 425, 429) for minutes, in case a merchant deploy went wrong, anything else for days.
 */
function httpError(statusCode: number, target: URL, tooLarge: boolean): CallbackHttpError {
  const truncated = tooLarge ? ' (body too large, reading stopped)' : '';
  const redirect = statusCode >= 300 && statusCode < 400 ? ', redirects are not followed' : '';
  const message = `${target.host} answered ${statusCode}${redirect}${truncated}`;
  return { code: 'http_error', message, retryable: true };
}

function describeFailure(error: unknown, options: CallbackHttpClientOptions): CallbackHttpError {
  if (error instanceof SsrfRefusedError) return { code: 'ssrf_refused', message: error.message, retryable: false };
  if (error instanceof DnsLookupError) return { code: 'dns_failed', message: error.message, retryable: true };
  const code = errorCode(error);
  const described = messageOf(error);
  const message = code === undefined || described.includes(code) ? described : `${described} (${code})`;
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return { code: 'timeout', message: `no connection within ${options.connectTimeoutMs} ms`, retryable: true };
    case 'UND_ERR_HEADERS_TIMEOUT':
      return { code: 'timeout', message: `no response headers within ${options.headersTimeoutMs} ms`, retryable: true };
    case 'UND_ERR_BODY_TIMEOUT':
      return { code: 'timeout', message: `response body silent for ${options.bodyTimeoutMs} ms`, retryable: true };
  }
  if (code !== undefined && (CONNECT_ERROR_CODES.has(code) || TLS_ERROR_CODE.test(code))) {
    return { code: 'connect_failed', message, retryable: true };
  }
  return { code: 'request_failed', message, retryable: true };
}

function messageOf(error: unknown): string {
  // A name with several addresses fails with an AggregateError (empty message) holding one error per
  // address. Errors are recognised by shape: those from Node's own realm fail instanceof under jest.
  if (typeof error === 'object' && error !== null && 'errors' in error && Array.isArray(error.errors)) {
    return error.errors.map(messageOf).join('; ');
  }
  if (typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string') {
    return error.message;
  }
  return String(error);
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}
