import type { FastifyInstance, RouteHandlerMethod } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Resolves once no route handler runs any more, counting those whose client went away (their
     * handlers still record payments and wallets), then once the work registered with
     * settleBeforeClose is done. What outlives a request (the pool, Redis) may close after it.
     */
    requestsSettled(): Promise<void>;
    /** Work a handler leaves running after it answers (a count sent to Redis a moment later): waited for by requestsSettled. */
    settleBeforeClose(settled: () => Promise<void>): void;
  }
}

/**
 * Tracks every route handler until its promise settles. Fastify's close waits for open
 * connections only: a client that goes away (a load balancer's timeout, a load generator that
 * stops) leaves its handler running after the listener closed, and a pool ended then fails its
 * next statement ("Cannot use a pool after calling end on the pool"). Must be added before routes.
 */
export function trackRequestsInFlight(app: FastifyInstance): void {
  const running = new Set<Promise<unknown>>();
  const settlers: Array<() => Promise<void>> = [];
  app.addHook('onRoute', (route) => {
    const handler = route.handler as (...args: Parameters<RouteHandlerMethod>) => unknown;
    route.handler = function trackedHandler(this: FastifyInstance, request, reply) {
      const result = handler.call(this, request, reply);
      if (result instanceof Promise) {
        const settled: Promise<unknown> = result.then(
          (): void => void running.delete(settled),
          (): void => void running.delete(settled),
        );
        running.add(settled);
      }
      return result;
    } as RouteHandlerMethod;
  });
  app.decorate('settleBeforeClose', (settled: () => Promise<void>) => {
    settlers.push(settled);
  });
  app.decorate('requestsSettled', async () => {
    while (running.size > 0) await Promise.all(running);
    await Promise.all(settlers.map((settled) => settled()));
  });
}

/**
 * Closes what the app holds beyond a request (`close`: the pool, Redis) when the app closes: after
 * the listener (Fastify closes it first, waiting for the requests of open connections) and after
 * every request still running has finished, so a rolling deploy fails no request in flight.
 */
export function closeAfterRequests(app: FastifyInstance, close: () => Promise<void>): void {
  // onClose hooks run last registered first: added after the app's own, this one runs before them.
  app.addHook('onClose', async () => {
    await app.requestsSettled();
    await close();
  });
}
