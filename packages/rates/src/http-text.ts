import { Agent, request } from 'undici';
import type { RateSnapshot } from './rate-reader';
import { RateSourceError, sourceCacheKey, type RateSource } from './rate-source';

export interface HttpTextOptions {
  /** Time limit of the whole fetch: connect, headers and body. */
  timeoutMs: number;
  accept: string;
  /** Reading stops past this many bytes (the ECB file is ~2 KB, an API's JSON ~5 KB). */
  maxBytes?: number;
}

/** Where an HTTP rate source reads (its public address by default) and how long one fetch may take. */
export interface HttpRateSourceOptions {
  url?: string;
  timeoutMs: number;
}

/** A rate source that GETs one document at `url` and reads the table from its text with `parse`. */
export function httpRateSource(
  name: string,
  url: string,
  options: Omit<HttpTextOptions, 'maxBytes'>,
  parse: (text: string) => RateSnapshot,
): RateSource {
  const http = new HttpTextClient(name);
  return {
    name,
    cacheKey: sourceCacheKey(name, url),
    fetch: async () => parse(await http.get(url, options)),
    close: () => http.close(),
  };
}

/**
 * GETs a small text document. A status other than 200, a redirect (set the new URL instead), a
 * body over the size cap or the time limit all throw a RateSourceError naming the URL. Connections
 * are not kept alive: a source is read once an hour or so.
 */
export class HttpTextClient {
  private readonly agent: Agent;

  constructor(private readonly source: string) {
    this.agent = new Agent({ keepAliveTimeout: 1000, connections: 2 });
  }

  async get(url: string, { timeoutMs, accept, maxBytes = 1_000_000 }: HttpTextOptions): Promise<string> {
    let response: Awaited<ReturnType<typeof request>>;
    try {
      response = await request(url, {
        method: 'GET',
        dispatcher: this.agent,
        headers: { accept, 'user-agent': 'usdc-card-gateway/rates' },
        signal: AbortSignal.timeout(timeoutMs),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        reset: true,
      });
    } catch (error) {
      throw new RateSourceError(this.source, `GET ${url} failed: ${describe(error, timeoutMs)}`, { cause: error });
    }
    if (response.statusCode !== 200) {
      await response.body.dump().catch(() => undefined);
      const location = response.headers.location;
      throw new RateSourceError(
        this.source,
        `GET ${url} answered ` +
          `${response.statusCode}${typeof location === 'string' ? ` (redirect to ${location}; set RATE_SOURCE_URL to it)` : ''}`,
      );
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of response.body) {
        size += (chunk as Buffer).length;
        if (size > maxBytes) {
          response.body.destroy();
          throw new RateSourceError(this.source, `GET ${url}: the answer is larger than ${maxBytes} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
    } catch (error) {
      if (error instanceof RateSourceError) throw error;
      throw new RateSourceError(this.source, `GET ${url}: reading the answer failed: ${describe(error, timeoutMs)}`, { cause: error });
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

function describe(error: unknown, timeoutMs: number): string {
  const { name, code, message } = error as { name?: string; code?: string; message?: string };
  if (name === 'TimeoutError' || name === 'AbortError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return `no answer within ${timeoutMs} ms`;
  }
  return code ? `${code} ${message ?? ''}`.trim() : (message ?? String(error));
}
