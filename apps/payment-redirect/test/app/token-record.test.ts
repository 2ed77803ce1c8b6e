import { itRecordsItsTokenOnce } from '@gateway/app-testkit';
import { createPool, TokenRepository } from '@gateway/db/payment-redirect';
import { findFreePort, startTcpForwarder } from '@gateway/testkit';
import { paymentRedirectFixture } from '../support/payment-redirect-fixture';

// payment-redirect has no RPC, and the providers buy the token it is configured with: it records
// that token when the database knows none (the chain watcher and the settlement worker check its
// decimals() at their boot), and refuses to boot with another token or chain than the recorded one.

const fixture = paymentRedirectFixture('redirect_token');
const NATIVE_USDC = '0x3c499c542cef5e3811e1192ce70d8cc03d5c3359';
const BRIDGED_USDC = '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174';

itRecordsItsTokenOnce(fixture, (pool) => new TokenRepository(pool).list());

it('starts without PostgreSQL (not ready), and once the database answers is ready only with the recorded token', async () => {
  // Both apps reach PostgreSQL through a port that answers nothing until the test opens it.
  const port = await findFreePort();
  const url = new URL(fixture.db.connectionString);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  const pools = [0, 1].map(() => createPool({ connectionString: url.toString(), schema: fixture.db.schema, max: 2 }));
  for (const pool of pools) pool.on('error', () => undefined);
  const recorded = await fixture.build(fixture.config(), { pool: pools[0] });
  const another = await fixture.build(fixture.config({ USDC_TOKEN_ADDRESS: BRIDGED_USDC }), { pool: pools[1] });
  const ready = async (app: typeof recorded) => (await app.inject({ url: '/readyz' })).statusCode;
  expect([await ready(recorded), await ready(another)]).toEqual([503, 503]);

  const postgres = await startTcpForwarder(port, Number(new URL(fixture.db.connectionString).port || 5432));
  try {
    expect([await ready(recorded), await ready(another)]).toEqual([200, 503]);
    expect(await new TokenRepository(fixture.db.pool).list()).toEqual([{ chainId: 137, address: NATIVE_USDC }]);
  } finally {
    await Promise.all([recorded.close(), another.close()]);
    await Promise.all(pools.map((pool) => pool.end()));
    await postgres.close();
  }
});
