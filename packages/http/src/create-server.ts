import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errorHandlerPlugin } from './plugins/error-handler';
import { securityHeadersPlugin } from './plugins/security-headers';
import { rateLimitPlugin, type RateLimitOptions } from './plugins/rate-limit';
import { metricsPlugin } from './plugins/metrics';
import { healthPlugin, type ReadinessCheck } from './plugins/health';
import { openApiPlugin } from './plugins/openapi';
import { redactUrl } from './log-redaction';

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
}

const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;

function trustHops(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}

/** A Fastify instance with everything every gateway HTTP service shares; the app adds routes. */
export async function createServer(options: ServerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? {
      level: options.logLevel ?? 'info',
      base: { service: options.serviceName },
      serializers: {
        req: (request) => ({ method: request.method, url: redactUrl(request.url), remoteAddress: request.ip }),
      },
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], remove: true },
    },
    // A hop count as the function proxy-addr makes of it (Fastify's types take no number).
    trustProxy: typeof options.trustProxy === 'number' ? trustHops(options.trustProxy) : (options.trustProxy ?? false),
    requestIdHeader: 'x-request-id',
    genReqId: (request) => {
      const incoming = request.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    // Query strings here are short; refuse pathological ones before parsing them.
    routerOptions: { maxParamLength: 200 },
    bodyLimit: 16 * 1024,
    ajv: { customOptions: { allErrors: false, coerceTypes: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  await app.register(errorHandlerPlugin);
  await app.register(securityHeadersPlugin);
  await app.register(metricsPlugin, { serviceName: options.serviceName });
  if (options.rateLimit) await app.register(rateLimitPlugin, options.rateLimit);
  await app.register(healthPlugin, { checks: options.readiness });
  await app.register(openApiPlugin, {
    title: options.serviceName,
    description: options.description,
    version: options.version ?? '0.1.0',
  });
  return app;
}
