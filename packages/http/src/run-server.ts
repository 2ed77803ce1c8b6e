import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';

/**
 * Listens, and on SIGTERM/SIGINT stops taking connections, lets requests in flight finish and
 * runs the app's onClose hooks (pools, queues) before exiting; a stuck close is cut off.
 */
export async function runServer(app: FastifyInstance, listen: { host: string; port: number }): Promise<void> {
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error');
    else app.log.info({ signal }, 'shutting down');
    await app.close();
  });
  await app.listen(listen);
}
