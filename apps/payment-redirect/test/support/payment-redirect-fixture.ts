import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import { walletDedupeKey, type EvmAddress } from '@gateway/domain';
import { WalletRepository } from '@gateway/db';
import { createTestDatabase, createTestRedis, testKeyEnv, type TestDatabase, type TestRedis } from '@gateway/testkit';
import { buildPaymentRedirectApp } from '../../src/app';
import { loadPaymentRedirectConfig, type PaymentRedirectConfig } from '../../src/config';

export type EnvOverrides = Record<string, string>;

/** The merchant's own wallet, where every test wallet pays out (the tests check it never leaks to customers). */
export const payout = '0x52908400098527886E0F7030069857D2E4169EE7';

export interface TestWallet {
  /** The temporary address the payment links lead to. */
  temporary: EvmAddress;
  /** Stored as is: payment-redirect finds the wallet by the address the token opens to, not by this column. */
  addressIn: string;
  callbackUrl: string;
  payout?: string;
  hdIndex?: bigint;
  ipnToken?: string;
}

export interface PaymentRedirectFixture {
  /** A migrated schema of this file's own; set once the fixture's beforeAll has run. */
  readonly db: TestDatabase;
  /** A Redis prefix of this file's own; set once the fixture's beforeAll has run. */
  readonly cache: TestRedis;
  /** The settings every app of the file starts from, with `overrides` on top. */
  env(overrides?: EnvOverrides): Record<string, string>;
  /** The loaded (validated) configuration of `env(overrides)`: throws as the app would on a bad setting. */
  config(overrides?: EnvOverrides): PaymentRedirectConfig;
  /** Builds an app on the file's database and Redis (or those given); the fixture closes it after the file. */
  build(config?: PaymentRedirectConfig, deps?: { pool?: Pool }): Promise<FastifyInstance>;
  /** Stores a wallet as Create Wallet would have (wallet-control's job), for payment links to point at. */
  insertWallet(wallet: TestWallet): Promise<{ walletId: string; ipnToken: string }>;
}

/**
 * Registers the beforeAll/afterAll of a payment-redirect test file: a fresh schema and Redis prefix (so
 * files run in parallel and re-run cleanly), and, after the file, every app it built closed before
 * the schema is dropped and the Redis keys deleted.
 */
export function paymentRedirectFixture(label: string, fileEnv: EnvOverrides = {}): PaymentRedirectFixture {
  let db: TestDatabase | undefined;
  let cache: TestRedis | undefined;
  const apps: FastifyInstance[] = [];

  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`paymentRedirectFixture: ${what} is only there once beforeAll has run`);
    return value;
  };

  const fixture: PaymentRedirectFixture = {
    get db() {
      return ready(db, 'db');
    },
    get cache() {
      return ready(cache, 'cache');
    },
    env(overrides = {}) {
      return {
        ...testKeyEnv(),
        NODE_ENV: 'test',
        DATABASE_URL: fixture.db.connectionString,
        DATABASE_SCHEMA: fixture.db.schema,
        REDIS_PREFIX: fixture.cache.prefix,
        // Tests fire many requests from one client address; none of them is about the limit.
        RATE_LIMIT_MAX: '100000',
        ...fileEnv,
        ...overrides,
      };
    },
    config(overrides = {}) {
      return loadPaymentRedirectConfig(fixture.env(overrides));
    },
    async build(config = fixture.config(), deps = {}) {
      const app = await buildPaymentRedirectApp({ config, pool: deps.pool ?? fixture.db.pool, redis: fixture.cache.redis, logger: false });
      apps.push(app);
      return app;
    },
    async insertWallet({ temporary, addressIn, callbackUrl, payout: payoutAddress = payout, hdIndex = 0n, ipnToken = randomBytes(24).toString('base64url') }) {
      await new WalletRepository(fixture.db.pool).createOrGetMany([
        { hdIndex, polygonAddress: temporary, addressIn, payoutAddress, callbackUrl, dedupeKey: walletDedupeKey(payoutAddress, callbackUrl), ipnToken, keyFingerprint: 'a1b2c3d4' },
      ]);
      // createOrGetMany returns no id; deposits and payments in the tests need it.
      const { rows } = await fixture.db.pool.query<{ id: string }>('SELECT id::text FROM wallets WHERE polygon_address = $1', [temporary.toLowerCase()]);
      return { walletId: rows[0]!.id, ipnToken };
    },
  };

  beforeAll(async () => {
    db = await createTestDatabase(label);
    cache = createTestRedis(label);
  });

  afterAll(async () => {
    // Closing twice is harmless, so tests may still close an app early themselves.
    await Promise.all(apps.map((app) => app.close()));
    await db?.drop();
    await cache?.close();
  });

  return fixture;
}
