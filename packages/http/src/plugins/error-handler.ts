import fp from 'fastify-plugin';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { GatewayError, type ErrorBody } from '@gateway/domain';

interface ValidationIssue {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

/**
 * One place turns every failure into the wire error shape. Validation failures name the
 * parameter and repeat its documented format, so the caller learns how to fix the request;
 * anything unexpected becomes a bare 500 whose details stay in the log.
 */
export const errorHandlerPlugin = fp(async (app: FastifyInstance) => {
  app.setErrorHandler((error: FastifyError | GatewayError, request, reply) => {
    if (error instanceof GatewayError) {
      if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
      return reply.status(error.statusCode).send(error.toBody());
    }
    if (error.validation) {
      return reply.status(400).send(validationBody(error.validation as ValidationIssue[], request));
    }
    if (isDependencyOutage(error)) {
      request.log.error({ err: error }, 'dependency unavailable');
      reply.header('retry-after', '5');
      return reply.status(503).send(body('service_unavailable', 'the service is temporarily unavailable; retry in a few seconds'));
    }
    const status = error.statusCode ?? 500;
    if (status === 429) {
      return reply.status(429).send(body('rate_limited', 'too many requests from this client; slow down and retry after the Retry-After delay'));
    }
    if (status === 413) {
      return reply.status(413).send(body('payload_too_large', 'request is too large'));
    }
    if (status >= 400 && status < 500) {
      // Framework-level client errors (bad content type, malformed URL, …): their message is safe.
      return reply.status(status).send(body('invalid_parameter', error.message));
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send(body('internal_error', 'internal error; quote the x-request-id header to support'));
  });

  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send(body('not_found', `no route ${request.method} ${request.url.split('?')[0]}; see /docs for the API`));
  });
});

// Socket errors and PostgreSQL's connection-class states: the request was fine, retrying helps.
const OUTAGE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', '53300']);

function isDependencyOutage(error: Error & { code?: unknown }): boolean {
  const code = typeof error.code === 'string' ? error.code : '';
  return OUTAGE_CODES.has(code) || code.startsWith('08') || /timeout exceeded when trying to connect|Connection terminated/i.test(error.message);
}

function body(code: ErrorBody['code'], error: string, param?: string): ErrorBody {
  return { status: 'error', code, error, ...(param ? { param } : {}) };
}

function validationBody(issues: ValidationIssue[], request: FastifyRequest): ErrorBody {
  const issue = issues.find((i) => i.keyword === 'required') ?? issues[0];
  const param =
    issue?.keyword === 'required'
      ? String(issue.params.missingProperty)
      : (issue?.instancePath.split('/').filter(Boolean)[0] ?? 'request');
  const hint = describeParam(request, param);
  if (issue?.keyword === 'required') {
    return body('missing_parameter', `${param} is required${hint ? `: ${hint}` : ''}`, param);
  }
  return body('invalid_parameter', `${param} is invalid${hint ? `: ${hint}` : ` (${issue?.message ?? 'bad value'})`}`, param);
}

function describeParam(request: FastifyRequest, param: string): string | undefined {
  const schema = request.routeOptions.schema as
    | { querystring?: { properties?: Record<string, { description?: string }> } }
    | undefined;
  return schema?.querystring?.properties?.[param]?.description;
}
