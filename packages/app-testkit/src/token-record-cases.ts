import type { Pool } from 'pg';
import type { ApiAppFixture } from './api-app-fixture';

const NATIVE_USDC = '0x3c499c542cef5e3811e1192ce70d8cc03d5c3359';
const BRIDGED_USDC = '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174';

/**
 * The token check of an API app without an RPC (wallet-control, payment-redirect), as tests of
 * its file: it records the token it is configured with when the database knows none, and refuses
 * to boot with another token or chain than the one recorded. `tokens` lists what the database
 * holds, through the app's own repository.
 */
export function itRecordsItsTokenOnce<Config>(
  fixture: ApiAppFixture<Config>,
  tokens: (pool: Pool) => Promise<Array<{ chainId: number; address: string }>>,
): void {
  it('records its token when the database knows none', async () => {
    await fixture.build();
    expect(await tokens(fixture.db.pool)).toEqual([{ chainId: 137, address: NATIVE_USDC }]);
  });

  it('refuses to boot with another token or chain than the one recorded', async () => {
    await expect(fixture.build(fixture.config({ USDC_TOKEN_ADDRESS: BRIDGED_USDC }))).rejects.toThrow(
      `USDC_TOKEN_ADDRESS: ${BRIDGED_USDC.toLowerCase()} on chain 137 is not the token this database counts in (${NATIVE_USDC} on chain 137)`,
    );
    await expect(fixture.build(fixture.config({ CHAIN_ID: '80002' }))).rejects.toThrow(
      /on chain 80002 is not the token this database counts in/,
    );
    expect(await tokens(fixture.db.pool)).toEqual([{ chainId: 137, address: NATIVE_USDC }]);
  });
}
