import { ConfigError, databasePoolOptions } from '@gateway/config';
import { createPool } from '@gateway/db/settlement-worker';
import { runServer } from '@gateway/http';
import { buildSettlementWorkerApp } from './app';
import { loadSettlementConfig, settlementChainOptions } from './config';
import { SettlementChainClient } from './chain/settlement-chain-client';

async function main(): Promise<void> {
  const config = loadSettlementConfig();
  const { raw } = config;
  // The token's EIP-712 domain is read from the chain here; a node that is down, on another
  // chain, or a token whose domain does not match its DOMAIN_SEPARATOR stops the boot.
  const chain = await SettlementChainClient.connect(settlementChainOptions(config));
  const pool = createPool({ ...databasePoolOptions(raw, 'settlement-worker'), app: 'settlement-worker' });
  const app = await buildSettlementWorkerApp({ config, pool, chain });
  app.addHook('onClose', () => pool.end());
  app.log.info(
    { chainId: chain.chainId, token: chain.token, domain: { name: chain.domain.name, version: chain.domain.version } },
    'token EIP-712 domain read from the chain',
  );
  app.settlement.start();
  await runServer(app, { host: raw.METRICS_HOST, port: raw.METRICS_PORT });
}

main().catch((error: Error) => {
  console.error(error instanceof ConfigError ? `settlement-worker: ${error.message}` : error);
  process.exit(1);
});
