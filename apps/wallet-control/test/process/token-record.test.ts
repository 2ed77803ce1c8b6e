import { TokenRepository } from '@gateway/db/wallet-control';
import { walletControlFixture } from '../support/wallet-control-fixture';

// wallet-control has no RPC: it records the token it is configured with when the database knows
// none (the chain watcher and the settlement worker check its decimals() at their boot), and
// refuses to boot with another token or chain than the one recorded.

const fixture = walletControlFixture('wallet_token');
const NATIVE_USDC = '0x3c499c542cef5e3811e1192ce70d8cc03d5c3359';
const BRIDGED_USDC = '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174';

it('records its token when the database knows none', async () => {
  await fixture.build();
  expect(await new TokenRepository(fixture.db.pool).list()).toEqual([{ chainId: 137, address: NATIVE_USDC }]);
});

it('refuses to boot with another token or chain than the one recorded', async () => {
  await expect(fixture.build(fixture.config({ USDC_TOKEN_ADDRESS: BRIDGED_USDC }))).rejects.toThrow(
    `USDC_TOKEN_ADDRESS: ${BRIDGED_USDC.toLowerCase()} on chain 137 is not the token this database counts in (${NATIVE_USDC} on chain 137)`,
  );
  await expect(fixture.build(fixture.config({ CHAIN_ID: '80002' }))).rejects.toThrow(
    /on chain 80002 is not the token this database counts in/,
  );
  expect(await new TokenRepository(fixture.db.pool).list()).toEqual([{ chainId: 137, address: NATIVE_USDC }]);
});
