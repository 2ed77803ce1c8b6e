// The compose stack's demo merchant (service `demo-merchant`): checks and prints every callback.
import { readFileSync } from 'node:fs';
import { startDemoMerchant } from './demo-merchant';

function setting(name: string): string {
  const direct = process.env[name];
  if (direct) return direct;
  const file = process.env[`${name}_FILE`];
  if (file) return readFileSync(file, 'utf8').trim();
  throw new Error(`${name} (or ${name}_FILE) is not set`);
}

async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 3400);
  await startDemoMerchant({
    port,
    host: process.env.HOST ?? '0.0.0.0',
    publicUrl: setting('PUBLIC_URL'),
    publicSpki: setting('CALLBACK_PUBLIC_SPKI'),
  });
  console.log(`demo merchant listening on ${port}; callbacks are printed here`);
}

main().catch((error: Error) => {
  console.error(`demo merchant failed: ${error.message}`);
  process.exit(1);
});
