import { deployTestTokenWithDecimals } from '@gateway/chain';
import { TokenRepository } from '@gateway/db/chain-watcher';
import { anvilAccounts } from '@gateway/testkit';
import { strangerAddress } from '../support/wallets';
import { startWatcher, useWatcherBed } from '../support/watcher-fixture';

// Every amount in the gateway is in 6-decimal base units of one token: the watcher reads the
// token's decimals() at boot and records the token in the database, and refuses another.

jest.setTimeout(60_000);

const bed = useWatcherBed('watcher_token');

it('refuses to boot with a token whose decimals() is not 6, or none, and records nothing', async () => {
  const eighteen = await deployTestTokenWithDecimals({ ...bed.chain.anvil, deployerKey: anvilAccounts[0].privateKey, decimals: 18 });
  await expect(startWatcher({ ...bed.target, token: eighteen })).rejects.toThrow(
    new RegExp(`USDC_TOKEN_ADDRESS: token ${eighteen} has 18 decimals; the gateway counts in USDC base units of 6 decimals`),
  );
  // No contract at all there: no decimals() to read.
  const nothing = strangerAddress();
  await expect(startWatcher({ ...bed.target, token: nothing })).rejects.toThrow(
    /USDC_TOKEN_ADDRESS: token 0x[0-9a-fA-F]{40} answers no decimals\(\)/,
  );
  expect(await new TokenRepository(bed.db.pool).list()).toEqual([]);
});

it('records the token at its first boot, and refuses to boot with another token or chain than the recorded one', async () => {
  const app = await startWatcher(bed.target);
  await app.close();
  expect(await new TokenRepository(bed.db.pool).list()).toEqual([{ chainId: 137, address: bed.chain.token.toLowerCase() }]);

  const other = await bed.chain.deployForeignToken();
  await expect(startWatcher({ ...bed.target, token: other })).rejects.toThrow(
    new RegExp(
      `USDC_TOKEN_ADDRESS: ${other.toLowerCase()} on chain 137 is not the token this database counts in ` +
        `\\(${bed.chain.token.toLowerCase()} on chain 137\\)`,
    ),
  );
  await expect(startWatcher(bed.target, { CHAIN_ID: '80002' })).rejects.toThrow(/on chain 80002 is not the token this database counts in/);
  // The recorded token still boots.
  await (await startWatcher(bed.target)).close();
});
