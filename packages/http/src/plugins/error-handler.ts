import fp from 'fastify-plugin';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { ERROR_CODES, errorBody, GatewayError, type ErrorBody, type ErrorCode } from '@gateway/domain';
import { allowedMethods } from './method-table';

/** `ErrorBody` as a response schema: what the routes answer on an error, and what /docs lists (every code). */
export const errorBodySchema = Type.Object(
  {
    status: Type.Literal('error'),
    code: Type.Unsafe<ErrorCode>({
      type: 'string',
      enum: Object.keys(ERROR_CODES),
      description: 'stable and machine-readable: switch on this, not on the message',
    }),
    error: Type.String({ description: 'what is wrong and how to fix it' }),
    param: Type.Optional(Type.String({ description: 'the parameter to fix, when one is to blame' })),
  },
  { description: 'error' },
);

interface ValidationIssue {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

/**
 * One place turns every failure into the wire error shape. Validation failures name the
 * parameter and repeat its documented format, so the caller learns how to fix the request;
 * anything unexpected becomes a bare 500 whose details stay in the log. A path that exists with
 * other methods gets 405 with `Allow`; an unknown path 404.
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
      return reply.status(503).send(errorBody('service_unavailable', 'the service is temporarily unavailable; retry in a few seconds'));
    }
    const known = frameworkErrorBody(error, request);
    if (known) return reply.status(known.status).send(known.body);
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send(errorBody('internal_error', 'internal error; quote the x-request-id header to support'));
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const allowed = allowedMethods(app, request.url);
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      return sendMethodNotAllowed(reply, request.method, path, allowed);
    }
    return reply.status(404).send(errorBody('not_found', `no route ${request.method} ${path}; see /docs for the API`));
  });
});

export function sendMethodNotAllowed(reply: FastifyReply, method: string, path: string, allowed: readonly string[]): FastifyReply {
  reply.header('allow', allowed.join(', '));
  return reply.status(405).send(errorBody('method_not_allowed', `${method} is not allowed on ${path}; use ${allowed.join(' or ')}`));
}

// Socket errors and PostgreSQL's connection-class states, a statement cancelled by its timeout
// (57014) or a lock wait by lock_timeout (55P03): the request was fine, retrying helps.
const OUTAGE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', '53300', '57014', '55P03']);

function isDependencyOutage(error: Error & { code?: unknown }): boolean {
  const code = typeof error.code === 'string' ? error.code : '';
  return (
    OUTAGE_CODES.has(code) || code.startsWith('08') || /timeout exceeded when trying to connect|Connection terminated/i.test(error.message)
  );
}

const MAX_ECHO = 100;
const echo = (text: string) => (text.length > MAX_ECHO ? `${text.slice(0, MAX_ECHO)}…` : text);

/**
 * Fastify's own 4xx errors (router, content-type parser, body limit, …) in our shape, with a code
 * that says what to fix; undefined for anything that is not a client error.
 */
export function frameworkErrorBody(error: FastifyError, request: FastifyRequest): { status: number; body: ErrorBody } | undefined {
  const path = echo(request.url.split('?')[0] ?? '');
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return {
        status: 400,
        body: errorBody(
          'malformed_request',
          `the path ${path} is not valid percent-encoding: every % must start a %XX escape of UTF-8 bytes (a literal % is %25)`,
        ),
      };
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return { status: 414, body: errorBody('uri_too_long', 'a path segment of this URL is too long; see /docs for the API') };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE': {
      const type = request.headers['content-type'];
      return {
        status: 415,
        body: errorBody(
          'unsupported_media_type',
          `a body of type ${type ? echo(type) : '(none given)'} is not accepted by ${request.method} ${path}`,
        ),
      };
    }
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, body: errorBody('malformed_request', 'the Content-Length header does not match the body') };
    default:
      break;
  }
  const status = error.statusCode ?? 500;
  switch (status) {
    case 404:
      return { status, body: errorBody('not_found', `no route ${request.method} ${path}; see /docs for the API`) };
    case 405:
      return { status, body: errorBody('method_not_allowed', `${request.method} is not allowed on ${path}`) };
    case 408:
      return { status, body: errorBody('request_timeout', 'the request was not received in time') };
    case 413:
      return { status, body: errorBody('payload_too_large', 'request is too large') };
    case 414:
      return { status, body: errorBody('uri_too_long', 'the URL is too long') };
    case 415:
      return { status, body: errorBody('unsupported_media_type', 'this body type is not accepted here') };
    case 429:
      return {
        status,
        body: errorBody('rate_limited', 'too many requests from this client; slow down and retry after the Retry-After delay'),
      };
    case 431:
      return { status, body: errorBody('headers_too_large', 'the request line and headers are too large') };
    default:
      // Other framework-level client errors (malformed JSON, an empty JSON body, …): their message is safe.
      return status >= 400 && status < 500 ? { status, body: errorBody('invalid_parameter', error.message) } : undefined;
  }
}

function validationBody(issues: ValidationIssue[], request: FastifyRequest): ErrorBody {
  const issue = issues.find((i) => i.keyword === 'required') ?? issues[0];
  const param =
    issue?.keyword === 'required' ? String(issue.params.missingProperty) : (issue?.instancePath.split('/').filter(Boolean)[0] ?? 'request');
  const hint = describeParam(request, param);
  if (issue?.keyword === 'required') {
    return errorBody('missing_parameter', `${param} is required${hint ? `: ${hint}` : ''}`, param);
  }
  return errorBody('invalid_parameter', `${param} is invalid${hint ? `: ${hint}` : ` (${issue?.message ?? 'bad value'})`}`, param);
}

function describeParam(request: FastifyRequest, param: string): string | undefined {
  const schema = request.routeOptions.schema as { querystring?: { properties?: Record<string, { description?: string }> } } | undefined;
  return schema?.querystring?.properties?.[param]?.description;
}
