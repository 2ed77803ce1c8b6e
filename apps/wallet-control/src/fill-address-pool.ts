// Operator command: `pnpm --filter @gateway/wallet-control pool:fill <count>` derives addresses into
// the shared PostgreSQL pool now (before a launch or a benchmark) instead of waiting for the
// keeper, which only works while the service is idle. Several may run at once, one per core:
// each takes its HD indexes from the database sequence, so none derives an address twice. Each
// tops up from the count it saw when it started, so k started together add up to k × <count>.
import Fastify from 'fastify';
import { createPool, WalletRepository } from '@gateway/db';
import { TemporaryAddressDeriver } from '@gateway/chain';
import { ConfigError } from '@gateway/config';
import { loadWalletControlConfig } from './config';
import { AddressSupply } from './services/address-supply';

const USAGE = 'usage: pnpm --filter @gateway/wallet-control pool:fill <count>   (tops the address pool up to <count>)';

async function main(): Promise<void> {
  const count = parseCount(process.argv[2]);
  const { raw } = loadWalletControlConfig();
  // topUp runs one query at a time.
  const pool = createPool({ connectionString: raw.DATABASE_URL, schema: raw.DATABASE_SCHEMA, max: 1, applicationName: 'fill-address-pool' });
  try {
    const supply = new AddressSupply(
      new WalletRepository(pool),
      new TemporaryAddressDeriver(raw.HD_XPUB),
      { target: count, lowWater: count, claimBatch: raw.ADDRESS_POOL_CLAIM_BATCH },
      Fastify({ logger: { level: raw.LOG_LEVEL } }).log,
    );
    const started = performance.now();
    const added = await supply.topUp();
    const seconds = (performance.now() - started) / 1000;
    console.log(`added ${added} addresses to the pool in ${seconds.toFixed(1)} s`);
  } finally {
    await pool.end();
  }
}

function parseCount(arg: string | undefined): number {
  const count = Number(arg);
  if (!arg || !Number.isSafeInteger(count) || count < 1) {
    console.error(USAGE);
    process.exit(2);
  }
  return count;
}

main().catch((error: Error) => {
  console.error(error instanceof ConfigError ? `fill-address-pool: ${error.message}` : error);
  process.exit(1);
});
