import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** What the route did (`recordOutcome`), written on the request's one access line. */
    outcome: { outcome: string } | null;
  }
}

/**
 * One log line per request, written when it completes: the request, the status, the time, and
 * what the route did (`recordOutcome`). A second line per request would double the logging cost
 * of the busiest endpoints.
 */
export class AccessLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    const line = { ...request.outcome, req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}

/** Puts what the route did (`'wallet created'`, with ids already masked) on the request's access line. */
export function recordOutcome(request: FastifyRequest, outcome: string, facts: Record<string, unknown> = {}): void {
  request.outcome = { ...facts, outcome };
}
