import { randomUUID } from 'node:crypto';
import { writeSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import pino from 'pino';
import type { Registry } from 'prom-client';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errorBody, type ErrorBody } from '@gateway/domain';
import { errorHandlerPlugin, frameworkErrorBody } from './plugins/error-handler';
import { methodTablePlugin } from './plugins/method-table';
import { queryEncodingPlugin } from './plugins/query-encoding';
import { securityHeaders, securityHeadersPlugin } from './plugins/security-headers';
import { rateLimitPlugin, type RateLimitOptions } from './plugins/rate-limit';
import { metricsPlugin } from './plugins/metrics';
import { healthPlugin, type ReadinessCheck } from './plugins/health';
import { openApiPlugin } from './plugins/openapi';
import { redactUrl } from './log-redaction';
import { AccessLogController } from './access-log';
import { trackRequestsInFlight } from './requests-in-flight';

// Declared here rather than beside each plugin: a program that uses this package sees only what
// the entry point's declarations reach, and every server made by createServer has both.
declare module 'fastify' {
  interface FastifyInstance {
    /** The registry of metricsPlugin: process metrics and the request histogram. */
    metrics: Registry;
    /** The checks behind `/readyz`, so the metrics server answers `/readyz` the same way. */
    readinessChecks: Record<string, ReadinessCheck>;
  }
}

export interface ServerOptions {
  serviceName: string;
  description: string;
  version?: string;
  logLevel?: string;
  /** Pass `false` in tests that want silence; a pino destination otherwise. */
  logger?: FastifyServerOptions['logger'];
  /** false, a number of proxy hops, or proxy addresses/ranges (never the whole X-Forwarded-For). */
  trustProxy?: false | number | string[];
  rateLimit?: RateLimitOptions;
  readiness: Record<string, ReadinessCheck>;
  /**
   * Serve `/metrics` on this server. Only for a server whose port is private anyway (the workers'
   * health and metrics server); a public API app leaves it off and runs createMetricsServer on its
   * METRICS_PORT (runApp does).
   */
  metricsRoute?: boolean;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;
const MAX_PARAM_LENGTH = 200;

/**
 * Log lines are written in blocks of LOG_BLOCK_BYTES (and at least every LOG_FLUSH_INTERVAL_MS),
 * asynchronously, rather than a write system call per line on the request path: under load that
 * call cost as much as deriving an address. The lines of a block wait in an array and leave joined:
 * sonic-boom's own minLength grows one string by `+=` and measures it at every line
 * (Buffer.byteLength), which flattens the whole block each time, ~14 KB of garbage per request.
 * Buffered lines are flushed when the process exits (pino's exit hook, then the unfinished block);
 * a SIGKILL can lose the last quarter second of lines, never a record (those are in PostgreSQL).
 */
const LOG_BLOCK_BYTES = 4096;
const LOG_FLUSH_INTERVAL_MS = 250;

function blockWrittenStdout(): { write(line: string): void; flush(callback?: (error?: Error) => void): void } {
  const destination = pino.destination({ dest: 1, sync: false });
  let lines: string[] = [];
  // In UTF-16 code units, near enough to bytes for a block's size.
  let length = 0;
  const take = (): string => {
    const block = lines.join('');
    lines = [];
    length = 0;
    return block;
  };
  const writeBlock = (): void => {
    if (lines.length > 0) destination.write(take());
  };
  // flush() throws once the stream is destroyed (at exit), which must not end the process.
  const flusher = setInterval(() => {
    writeBlock();
    destination.flush(() => undefined);
  }, LOG_FLUSH_INTERVAL_MS).unref();
  destination.once('close', () => clearInterval(flusher));
  // Registered after pino's own exit hook (made with the destination), so it runs after it: the
  // destination's lines first, then those of the unfinished block, synchronously.
  process.once('exit', () => {
    if (lines.length > 0) writeSync(1, take());
  });
  return {
    write(line) {
      lines.push(line);
      length += line.length;
      if (length >= LOG_BLOCK_BYTES) writeBlock();
    },
    flush(callback) {
      writeBlock();
      destination.flush(callback);
    },
  };
}

function trustHops(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}

/** A Fastify instance with everything every gateway HTTP service shares; the app adds routes. */
export async function createServer(options: ServerOptions): Promise<FastifyInstance> {
  const app = await createBaseServer({
    logger: options.logger ?? {
      level: options.logLevel ?? 'info',
      base: { service: options.serviceName },
      serializers: {
        req: (request) => ({ method: request.method, url: redactUrl(request.url), remoteAddress: request.ip }),
      },
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], remove: true },
      stream: blockWrittenStdout(),
    },
    // A hop count as the function proxy-addr makes of it (Fastify's types take no number).
    trustProxy: typeof options.trustProxy === 'number' ? trustHops(options.trustProxy) : (options.trustProxy ?? false),
    logController: new AccessLogController(),
    // The apps' boot steps are plugins: a rate source's first fetch, a chain's first answers or the
    // orders a crash interrupted may take longer than Fastify's 10 s, and are bounded by their own
    // time limits. The process's close stays bounded by close-with-grace (runApp).
    pluginTimeout: 0,
  });
  app.decorate('readinessChecks', options.readiness);
  await app.register(metricsPlugin, { serviceName: options.serviceName, route: options.metricsRoute ?? false });
  if (options.rateLimit) await app.register(rateLimitPlugin, options.rateLimit);
  await app.register(healthPlugin, { checks: options.readiness });
  await app.register(openApiPlugin, {
    title: options.serviceName,
    description: options.description,
    version: options.version ?? '0.1.0',
  });
  return app;
}

/**
 * Fastify with the gateway's request ids, security headers and one error shape for every layer:
 * the router (a bad URL, an over-long path parameter), the HTTP parser (a bad request line or
 * header, headers too large), the content-type parser and body limit, unknown paths (404) and
 * known paths with another method (405 with Allow). Used by createServer and the metrics server.
 */
export async function createBaseServer(options: {
  logger?: FastifyServerOptions['logger'];
  loggerInstance?: FastifyBaseLogger;
  trustProxy?: FastifyServerOptions['trustProxy'];
  logController?: FastifyServerOptions['logController'];
  pluginTimeout?: number;
}): Promise<FastifyInstance> {
  const headers = securityHeaders();
  const app = Fastify({
    ...(options.loggerInstance ? { loggerInstance: options.loggerInstance } : { logger: options.logger ?? false }),
    trustProxy: options.trustProxy ?? false,
    ...(options.logController ? { logController: options.logController } : {}),
    ...(options.pluginTimeout !== undefined ? { pluginTimeout: options.pluginTimeout } : {}),
    requestIdHeader: 'x-request-id',
    genReqId: (request) => {
      const incoming = request.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    // Path parameters here are short (a payment id, a provider name); longer ones get 414.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    bodyLimit: 16 * 1024,
    ajv: { customOptions: { allErrors: false, coerceTypes: false } },
    // Errors the router answers before any hook runs (a URL that is not valid percent-encoding, a
    // path parameter over maxParamLength): our shape and headers instead of Fastify's body.
    frameworkErrors: (error, request, reply) => answerFrameworkError(error, request, reply, headers),
    // What Node's HTTP parser refuses before Fastify sees a request (a bad request line, method or
    // header, headers over 16 KB, a request that does not arrive in time).
    // Fastify calls it bound to the instance.
    clientErrorHandler: function (this: unknown, error: Error & { code?: string }, socket: Socket) {
      answerClientError(error, socket, headers, (this as FastifyInstance).log);
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorateRequest('outcome', null);
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    done(null, payload);
  });
  trackRequestsInFlight(app);
  await app.register(methodTablePlugin, { maxParamLength: MAX_PARAM_LENGTH });
  await app.register(errorHandlerPlugin);
  await app.register(securityHeadersPlugin, { headers });
  await app.register(queryEncodingPlugin);
  return app;
}

function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply, headers: Record<string, string>): void {
  const known = frameworkErrorBody(error, request) ?? {
    status: 500,
    body: errorBody('internal_error', 'internal error; quote the x-request-id header to support'),
  };
  request.log.info({ code: error.code, status: known.status }, 'request refused by the router');
  reply.headers(headers).header('x-request-id', request.id).status(known.status).send(known.body);
}

function clientErrorAnswer(code: string | undefined): { status: number; body: ErrorBody } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        body: errorBody(
          'headers_too_large',
          'the request line and headers are larger than this server takes (16 KB); shorten the URL or the headers',
        ),
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, body: errorBody('request_timeout', 'the request was not received in time') };
    default:
      return {
        status: 400,
        body: errorBody(
          'malformed_request',
          'the request could not be parsed (its request line, method or a header is malformed); send a well-formed HTTP/1.1 request',
        ),
      };
  }
}

function answerClientError(
  error: Error & { code?: string },
  socket: Socket,
  headers: Record<string, string>,
  log: FastifyBaseLogger,
): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, body } = clientErrorAnswer(error.code);
  const id = randomUUID();
  log.info({ reqId: id, code: error.code, status }, 'request refused by the HTTP parser');
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const payload = JSON.stringify(body);
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Bad Request'}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    `x-request-id: ${id}`,
    'content-type: application/json; charset=utf-8',
    `content-length: ${Buffer.byteLength(payload)}`,
    'connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${payload}`, () => socket.destroy());
}
