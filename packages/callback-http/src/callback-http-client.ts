import type { LookupFunction } from 'node:net';
import { Agent } from 'undici';
import { createAddressPolicy, SsrfRefusedError } from './address-policy';
import { createGuardedConnector } from './guarded-connector';

export const BODY_EXCERPT_BYTES = 1024;

export interface CallbackHttpClientOptions {
  connectTimeoutMs: number;
  /**
   * From the request being sent to the end of the response headers. This and bodyTimeoutMs run
   * on undici's coarse timer and can fire up to about a second late; fine at callback scale.
   */
  headersTimeoutMs: number;
  /** Longest silence allowed between two chunks of the body. */
  bodyTimeoutMs: number;
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

const CONNECT_ERROR_CODES = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'ENODATA',
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'ETIMEDOUT',
  'EPROTO',
]);
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
      ...(options.lookup && { lookup: options.lookup }),
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
    return { ok: false, durationMs: elapsedMs(), bodyExcerpt: '', error: { code: 'invalid_url', message: urlProblem, retryable: false } };
  }
  const target = new URL(url);

  let statusCode: number | undefined;
  const excerpt: Buffer[] = [];
  let excerptBytes = 0;
  let receivedBytes = 0;
  let tooLarge = false;
  const bodyExcerpt = () => new TextDecoder().decode(Buffer.concat(excerpt), { stream: true });
  try {
    const response = await agent.request({
      origin: target.origin,
      path: `${target.pathname}${target.search}`,
      method: 'GET',
      headers: withUserAgent(headers, options.userAgent),
    });
    statusCode = response.statusCode;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      if (excerptBytes < BODY_EXCERPT_BYTES) {
        const part = chunk.subarray(0, BODY_EXCERPT_BYTES - excerptBytes);
        excerpt.push(part);
        excerptBytes += part.length;
      }
      receivedBytes += chunk.length;
      if (receivedBytes > options.maxResponseBytes) {
        tooLarge = true;
        // Leaving the loop destroys the body, which aborts the request and drops the connection.
        break;
      }
    }
  } catch (error) {
    // A body that stalls after a 2xx lands here too: the answer never completed, so it is not
    // counted as delivered; merchants deduplicate retries by delivery id.
    return { ok: false, statusCode, durationMs: elapsedMs(), bodyExcerpt: bodyExcerpt(), error: describeFailure(error, options) };
  }

  const durationMs = elapsedMs();
  if (statusCode >= 200 && statusCode < 300) {
    // The merchant did answer 2xx; an oversized body is its business and does not undo delivery.
    const note: CallbackHttpError | undefined = tooLarge
      ? { code: 'response_too_large', message: `body longer than ${options.maxResponseBytes} bytes, reading stopped`, retryable: false }
      : undefined;
    return { ok: true, statusCode, durationMs, bodyExcerpt: bodyExcerpt(), ...(note && { error: note }) };
  }
  return { ok: false, statusCode, durationMs, bodyExcerpt: bodyExcerpt(), error: httpError(statusCode, target, tooLarge) };
}

function problemWithUrl(url: string): string | undefined {
  if (!URL.canParse(url)) return 'not an absolute URL';
  const { protocol } = new URL(url);
  return protocol === 'http:' || protocol === 'https:' ? undefined : `only http and https callbacks are allowed, not ${protocol}`;
}

function withUserAgent(headers: Readonly<Record<string, string>>, userAgent: string): Record<string, string> {
  // Lower-cased so a caller's "User-Agent" replaces nothing and is not sent twice.
  const lowerCased = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  return { ...lowerCased, 'user-agent': userAgent };
}

/**
 * Every non-2xx is retried, 4xx and 410 Gone included: the usual cause is a merchant deploy
 * gone wrong, and a missed payment notice costs more than the retries the backoff schedule bounds.
 */
function httpError(statusCode: number, target: URL, tooLarge: boolean): CallbackHttpError {
  const truncated = tooLarge ? ' (body too large, reading stopped)' : '';
  const redirect = statusCode >= 300 && statusCode < 400 ? ', redirects are not followed' : '';
  return { code: 'http_error', message: `${target.host} answered ${statusCode}${redirect}${truncated}`, retryable: true };
}

function describeFailure(error: unknown, options: CallbackHttpClientOptions): CallbackHttpError {
  if (error instanceof SsrfRefusedError) return { code: 'ssrf_refused', message: error.message, retryable: false };
  const message = messageOf(error);
  const code = errorCode(error);
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return { code: 'timeout', message: `no connection within ${options.connectTimeoutMs} ms`, retryable: true };
    case 'UND_ERR_HEADERS_TIMEOUT':
      return { code: 'timeout', message: `no response headers within ${options.headersTimeoutMs} ms`, retryable: true };
    case 'UND_ERR_BODY_TIMEOUT':
      return { code: 'timeout', message: `response body silent for ${options.bodyTimeoutMs} ms`, retryable: true };
  }
  if (code !== undefined && (CONNECT_ERROR_CODES.has(code) || TLS_ERROR_CODE.test(code))) {
    return { code: 'connect_failed', message: message.includes(code) ? message : `${message} (${code})`, retryable: true };
  }
  return { code: 'request_failed', message: code === undefined ? message : `${message} (${code})`, retryable: true };
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
