import fp from 'fastify-plugin';
import FindMyWay from 'find-my-way';
import type { FastifyInstance, HTTPMethods } from 'fastify';

interface MethodTable {
  router: FindMyWay.Instance<FindMyWay.HTTPVersion.V1>;
  methods: Set<string>;
}

const TABLES = new WeakMap<FastifyInstance, MethodTable>();
const noop = () => undefined;

/**
 * A second router holding every route's path and method (Fastify's own answers one method at a
 * time), so a request for a known path with another method can be told apart from an unknown
 * path: 405 with `Allow` rather than 404. Register it before any route.
 */
export const methodTablePlugin = fp(async (app: FastifyInstance, options: { maxParamLength: number }) => {
  const table: MethodTable = { router: FindMyWay({ maxParamLength: options.maxParamLength }), methods: new Set() };
  TABLES.set(app, table);
  app.addHook('onRoute', (route) => {
    const methods: HTTPMethods[] = Array.isArray(route.method) ? route.method : [route.method as HTTPMethods];
    for (const method of methods) {
      // A HEAD route Fastify added beside a GET, or a path declared twice: already in the table.
      if (table.router.hasRoute(method as FindMyWay.HTTPMethod, route.url)) continue;
      table.router.on(method as FindMyWay.HTTPMethod, route.url, noop);
      table.methods.add(method);
    }
  });
});

/** The methods some route takes on this URL (path and query as requested), sorted; empty for an unknown path. */
export function allowedMethods(app: FastifyInstance, url: string): string[] {
  const table = TABLES.get(app);
  if (!table) return [];
  return [...table.methods].filter((method) => table.router.find(method as FindMyWay.HTTPMethod, url) !== null).sort();
}
