// Operator command: `pnpm --filter @gateway/wallet-control release-callback <callback URL>` frees a
// callback URL so it can be registered again: the wallet holding the URL, and the claim on the
// URL's origin and path (migration 017, CALLBACK_OWNERSHIP=path) with every live wallet created
// under it; `release-callback --list` lists the wallets whose callback was released (by this
// command, or by migration 013 for wallets that shared a URL).
//
// A callback URL belongs to the first wallet registered with it (the hijack of issue 17). Release
// it when that wallet is not the shop's (someone registered the shop's URL first) or when the shop
// needs the same URL with another payout address or split. The released wallet keeps its temporary
// address, payout address and split: USDC paid into it is still forwarded to that payout address
// (money is never stranded), but the callback-worker never calls the URL for it again (its
// deliveries fail at once with `callback_released`, also on a resend), and Check Payment Status
// still answers its ipn_token. Needs DATABASE_URL (and DATABASE_SCHEMA) of a user that may update
// wallets: the owner, not an app's role.
import { Type } from '@sinclair/typebox';
import { getAddress } from 'viem';
import { ConfigError, databaseSettings, loadConfig, runtimeSettings } from '@gateway/config';
import { createPool, WalletRepository, type ReleasedWallet } from '@gateway/db/wallet-control';
import { callbackOriginPath, callbackPathKey } from '@gateway/domain';

const USAGE = 'usage: release-callback <callback URL, exactly as registered> | release-callback --list';
const releaseSettings = Type.Object({ ...runtimeSettings, ...databaseSettings });

function describe(wallet: ReleasedWallet): string {
  return `wallet ${getAddress(wallet.polygonAddress)} (payout ${getAddress(wallet.payoutAddress)})`;
}

async function main(args: readonly string[]): Promise<number> {
  const [argument, ...rest] = args;
  if (argument === undefined || argument === '' || rest.length > 0) {
    console.error(USAGE);
    return 2;
  }
  const raw = loadConfig(releaseSettings);
  const pool = createPool({
    connectionString: raw.DATABASE_URL,
    schema: raw.DATABASE_SCHEMA,
    max: 1,
    applicationName: 'wallet-control-release-callback',
  });
  try {
    const wallets = new WalletRepository(pool);
    if (argument === '--list') {
      const released = await wallets.listReleased();
      if (released.length === 0) console.log('no wallet has a released callback');
      for (const wallet of released) console.log(`${wallet.releasedAt.toISOString()}  ${describe(wallet)}  ${wallet.callbackUrl}`);
      return 0;
    }
    if (!URL.canParse(argument)) {
      console.error(`not an absolute URL: ${argument}\n${USAGE}`);
      return 2;
    }
    // The URL is compared byte for byte, as Create Wallet registered it: pass it decoded (as
    // callback_url in Create Wallet's answer), not percent-encoded as the callback= parameter.
    // Its origin and path are compared in their canonical form, whatever the query.
    const exact = await wallets.releaseCallback(argument);
    const path = callbackOriginPath(argument);
    const claim = await wallets.releaseCallbackPath(callbackPathKey(path));
    const released = [...(exact ? [exact] : []), ...claim.wallets.filter((wallet) => wallet.polygonAddress !== exact?.polygonAddress)];
    if (released.length === 0 && !claim.claimed) {
      console.error(
        `no wallet holds the callback ${argument} (compared byte for byte) and no claim holds ${path}: already released, or never ` +
          `registered`,
      );
      return 1;
    }
    if (claim.claimed) console.log(`released the claim on ${path}: a wallet with any payout address may claim it again`);
    for (const wallet of released) {
      console.log(
        `released ${wallet.callbackUrl} from ${describe(wallet)}: its payments are still forwarded to that payout address, ` +
          'but it never calls this URL again; the URL can be registered again',
      );
    }
    return 0;
  } finally {
    await pool.end();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(error instanceof ConfigError ? `release-callback: ${error.message}` : error);
    process.exit(1);
  },
);
