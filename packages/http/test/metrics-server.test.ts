import type { FastifyInstance } from 'fastify';
import { createMetricsServer, createServer } from '../src';

const closing: FastifyInstance[] = [];
afterAll(() => Promise.all(closing.map((server) => server.close())));

async function apiApp(ready: { db: boolean }): Promise<FastifyInstance> {
  const app = await createServer({
    serviceName: 'metrics-test',
    description: 'test',
    logger: false,
    readiness: { postgres: async () => ready.db },
  });
  app.get('/things', async () => ({ ok: true }));
  closing.push(app);
  return app;
}

describe('/metrics on a port of its own', () => {
  it('is not served by the public API server, which keeps /healthz and /readyz', async () => {
    const app = await apiApp({ db: true });
    const response = await app.inject({ url: '/metrics' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ status: 'error', code: 'not_found' });
    expect((await app.inject({ url: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await app.inject({ url: '/readyz' })).json()).toEqual({ status: 'ok', checks: { postgres: 'ok' } });
  });

  it("is served by the metrics server, from the API app's registry, beside /healthz and /readyz", async () => {
    const ready = { db: true };
    const app = await apiApp(ready);
    await app.inject({ url: '/things' });
    const metricsServer = await createMetricsServer(app);
    closing.push(metricsServer);
    await app.listen({ host: '127.0.0.1', port: 0 });
    await metricsServer.listen({ host: '127.0.0.1', port: 0 });
    const apiUrl = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    const metricsUrl = `http://127.0.0.1:${(metricsServer.server.address() as { port: number }).port}`;

    const metrics = await fetch(`${metricsUrl}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await metrics.text();
    const things = text
      .split('\n')
      .find((line) => line.startsWith('http_request_duration_seconds_count{') && line.includes('route="/things"'));
    expect(things).toMatch(/service="metrics-test".* 1$/);
    expect(text).toContain('process_cpu_seconds_total');
    expect((await fetch(`${apiUrl}/metrics`)).status).toBe(404);

    for (const base of [apiUrl, metricsUrl]) {
      expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: 'ok' });
      expect(await (await fetch(`${base}/readyz`)).json()).toEqual({ status: 'ok', checks: { postgres: 'ok' } });
    }
    ready.db = false;
    const notReady = await fetch(`${metricsUrl}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toEqual({ status: 'unavailable', checks: { postgres: 'failing' } });
    // The metrics server answers errors in the same shape, and its own requests stay out of the API histogram.
    const unknown = await fetch(`${metricsUrl}/docs`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ status: 'error', code: 'not_found' });
    expect(await app.metrics.metrics()).not.toContain('route="/metrics"');
  });

  it('stays on the one server of a worker that asks for it (metricsRoute)', async () => {
    const worker = await createServer({
      serviceName: 'worker-test',
      description: 'test',
      logger: false,
      readiness: {},
      metricsRoute: true,
    });
    closing.push(worker);
    const response = await worker.inject({ url: '/metrics' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('process_cpu_seconds_total');
  });
});
