import fp from 'fastify-plugin';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { createPageRenderer, PAGES_ASSETS_DIR } from './page-renderer';

declare module 'fastify' {
  interface FastifyReply {
    /** Renders an HTML page from the app's views; pages follow live state, so nothing is cached. */
    page(template: string, data: object, statusCode?: number): FastifyReply;
  }
}

export interface PagesPluginOptions {
  viewsDir: string;
  /** The app's own static files, served beside the shared ones under /assets/. */
  assetsDir?: string;
}

export const pagesPlugin = fp(async (app: FastifyInstance, options: PagesPluginOptions) => {
  const renderer = createPageRenderer(options.viewsDir);
  await app.register(fastifyStatic, {
    root: options.assetsDir ? [PAGES_ASSETS_DIR, options.assetsDir] : PAGES_ASSETS_DIR,
    prefix: '/assets/',
    decorateReply: false,
    index: false,
    list: false,
    maxAge: '1h',
    schemaHide: true,
  });
  app.decorateReply('page', function page(this: import('fastify').FastifyReply, template: string, data: object, statusCode = 200) {
    return this.status(statusCode)
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(renderer.render(template, data));
  });
});
