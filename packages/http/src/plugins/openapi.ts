import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

/** OpenAPI built from the same TypeBox schemas that validate requests; browsable at /docs. */
export const openApiPlugin = fp(async (app: FastifyInstance, options: { title: string; description: string; version: string }) => {
  await app.register(swagger, {
    openapi: {
      info: { title: options.title, description: options.description, version: options.version },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: false } });
});
