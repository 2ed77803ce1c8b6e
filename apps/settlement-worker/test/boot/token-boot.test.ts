import { deployTestTokenWithDecimals, deployTestUsdc } from '@gateway/chain';
import { TokenRepository } from '@gateway/db/settlement-worker';
import { anvilAccounts } from '@gateway/testkit';
import { type SettlementFixture, settlementFixtureForFile } from '../support/settlement-fixture';

// Settlement pays amounts in 6-decimal base units of the token the database counts in: it reads
// decimals() at boot, records the token when the database knows none, and refuses another.

jest.setTimeout(60_000);

let fixture: SettlementFixture;

settlementFixtureForFile('token_boot', (started) => (fixture = started));

const deploy = (decimals?: number) => {
  const target = { rpcUrl: fixture.anvil.rpcUrl, chainId: fixture.anvil.chainId, deployerKey: anvilAccounts[0].privateKey };
  return decimals === undefined ? deployTestUsdc(target) : deployTestTokenWithDecimals({ ...target, decimals });
};

it('refuses to boot with a token whose decimals() is not 6, and records nothing', async () => {
  const eighteen = await deploy(18);
  await expect(fixture.buildApp({ USDC_TOKEN_ADDRESS: eighteen })).rejects.toThrow(
    new RegExp(`USDC_TOKEN_ADDRESS: token ${eighteen} has 18 decimals`),
  );
  expect(await new TokenRepository(fixture.db.pool).list()).toEqual([]);
});

it('records the token at its first boot, and refuses another token than the recorded one', async () => {
  const app = await fixture.buildApp();
  await app.close();
  expect(await new TokenRepository(fixture.db.pool).list()).toEqual([
    { chainId: fixture.anvil.chainId, address: fixture.token.toLowerCase() },
  ]);
  const other = await deploy();
  await expect(fixture.buildApp({ USDC_TOKEN_ADDRESS: other })).rejects.toThrow(
    new RegExp(`USDC_TOKEN_ADDRESS: ${other.toLowerCase()} on chain ${fixture.anvil.chainId} is not the token this database counts in`),
  );
});
