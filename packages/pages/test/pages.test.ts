import { join } from 'node:path';
import Fastify from 'fastify';
import { createPageRenderer, pagesPlugin } from '../src';

const viewsDir = join(__dirname, 'views');

describe('pages', () => {
  it('escapes data in the page and in the layout', () => {
    const html = createPageRenderer(viewsDir).render('hello', { name: '<script>alert(1)</script>' });
    expect(html).toContain('<h1>Hello &lt;script&gt;alert(1)&lt;/script&gt;</h1>');
    expect(html).toContain('<title>Hello &lt;script&gt;');
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('<script src="/assets/frame-guard.js" defer></script>');
  });

  it('refreshes without JavaScript only when asked', () => {
    const renderer = createPageRenderer(viewsDir);
    expect(renderer.render('hello', { name: 'a', refresh: 3 })).toContain('<noscript><meta http-equiv="refresh" content="3"></noscript>');
    expect(renderer.render('hello', { name: 'a' })).not.toContain('http-equiv="refresh"');
  });

  it('serves pages uncached and the shared assets', async () => {
    const app = Fastify();
    await app.register(pagesPlugin, { viewsDir });
    app.get('/hi', (_request, reply) => reply.page('hello', { name: 'x' }, 201));
    const page = await app.inject('/hi');
    expect(page.statusCode).toBe(201);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-store');
    const css = await app.inject('/assets/pages.css');
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toMatch(/text\/css/);
    expect((await app.inject('/assets/../package.json')).statusCode).toBe(404);
    await app.close();
  });
});
