import { databasePoolOptions } from '@gateway/config';
import { createPool } from '@gateway/db';
import { runApp } from '@gateway/http';
import { postgresRequirement, ServerRequirements } from '@gateway/http/boot-checks';
import { buildSandboxProviderApp } from './app';
import { loadSandboxProviderConfig } from './config';
import { SandboxBootRefusedError } from './services/sandbox-safety';

runApp({
  name: 'sandbox-provider',
  loadConfig: loadSandboxProviderConfig,
  refusals: [SandboxBootRefusedError],
  async build(config) {
    const { raw } = config;
    const pool = createPool(databasePoolOptions(raw, 'sandbox-provider'));
    const requirements = new ServerRequirements([postgresRequirement(pool)]);
    await requirements.atBoot();
    const app = await buildSandboxProviderApp({ config, pool }).catch(async (error: unknown) => {
      await pool.end();
      throw error;
    });
    requirements.attachTo(app);
    app.addHook('onClose', () => pool.end());
    // /metrics on its own port (METRICS_PORT), never the public one; /healthz and /readyz on both.
    return { app, listen: { host: raw.HOST, port: raw.PORT }, metrics: { host: raw.METRICS_HOST, port: raw.METRICS_PORT } };
  },
});
