import { itRecordsItsTokenOnce } from '@gateway/app-testkit';
import { TokenRepository } from '@gateway/db/wallet-control';
import { walletControlFixture } from '../support/wallet-control-fixture';

// wallet-control has no RPC: it records the token it is configured with when the database knows
// none (the chain watcher and the settlement worker check its decimals() at their boot), and
// refuses to boot with another token or chain than the one recorded.

const fixture = walletControlFixture('wallet_token');
itRecordsItsTokenOnce(fixture, (pool) => new TokenRepository(pool).list());
