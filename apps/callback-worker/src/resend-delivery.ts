// Operator command: `pnpm --filter @gateway/callback-worker resend <delivery-id>` puts a failed
// callback back in the queue with a fresh retry schedule. Needs DATABASE_URL (and REDIS_URL unless
// the default); if Redis is out of reach the reconciler of a running worker picks it up anyway.
import { Type } from '@sinclair/typebox';
import { ConfigError, databasePoolOptions, databaseSettings, loadConfig, redisSettings, runtimeSettings } from '@gateway/config';
import { CallbackDeliveryRepository, createPool } from '@gateway/db/callback-worker';
import { enqueueDeliveries, openCallbackQueue } from '@gateway/queue';
import { isUuid } from '@gateway/domain';

const resendSettings = Type.Object({ ...runtimeSettings, ...databaseSettings, ...redisSettings });

async function main(): Promise<number> {
  const deliveryId = process.argv[2]?.toLowerCase() ?? '';
  if (!isUuid(deliveryId)) {
    console.error('usage: resend <delivery-id>   (the uuid of a failed callback delivery)');
    return 2;
  }
  const raw = loadConfig(resendSettings);
  const pool = createPool({ ...databasePoolOptions(raw, 'callback-resend'), max: 1, app: 'callback-worker' });
  try {
    const outcome = await new CallbackDeliveryRepository(pool).resendFailed(deliveryId);
    if (outcome.result === 'not_found') {
      console.error(`no callback delivery ${deliveryId}`);
      return 1;
    }
    if (outcome.result === 'not_failed') {
      console.error(`delivery ${deliveryId} is ${outcome.status}; only failed deliveries can be resent`);
      return 1;
    }
    const queue = openCallbackQueue({ url: raw.REDIS_URL, prefix: raw.REDIS_PREFIX });
    try {
      await enqueueDeliveries(queue, [deliveryId]);
      console.log(`delivery ${deliveryId} is pending again and queued now`);
    } catch (error) {
      console.log(
        `delivery ${deliveryId} is pending again; Redis did not take the job (${(error as Error).message}), the worker's reconciler will queue it`,
      );
    } finally {
      await queue.close();
    }
    return 0;
  } finally {
    await pool.end();
  }
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(error instanceof ConfigError ? `resend: ${error.message}` : error);
    process.exit(1);
  },
);
