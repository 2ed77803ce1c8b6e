import { databasePoolOptions } from '@gateway/config';
import { createPool } from '@gateway/db/settlement-worker';
import { runApp } from '@gateway/http';
import { postgresRequirement, redisRequirement, ServerRequirements } from '@gateway/http/boot-checks';
import { buildSettlementWorkerApp } from './app';
import { loadSettlementConfig, settlementChainOptions } from './config';
import { SettlementChainClient } from './chain/settlement-chain-client';

runApp({
  name: 'settlement-worker',
  loadConfig: loadSettlementConfig,
  async build(config) {
    const { raw } = config;
    // The token's EIP-712 domain is read from the chain here; a node that is down, on another
    // chain, or a token whose domain does not match its DOMAIN_SEPARATOR stops the boot.
    const chain = await SettlementChainClient.connect(settlementChainOptions(config));
    const pool = createPool({ ...databasePoolOptions(raw, 'settlement-worker'), app: 'settlement-worker' });
    const requirements = new ServerRequirements([postgresRequirement(pool), redisRequirement(raw.REDIS_URL)]);
    await requirements.atBoot();
    const app = await buildSettlementWorkerApp({ config, pool, chain });
    requirements.attachTo(app);
    app.addHook('onClose', () => pool.end());
    app.log.info(
      { chainId: chain.chainId, token: chain.token, domain: { name: chain.domain.name, version: chain.domain.version } },
      'token EIP-712 domain read from the chain',
    );
    return { app, listen: { host: raw.METRICS_HOST, port: raw.METRICS_PORT } };
  },
});
