import { parseUsdc } from '@gateway/domain';
import { runGateway } from '@gateway/app-testkit';
import { parseCsvObjects } from '@gateway/testkit';
import type { Hash } from 'viem';
import { freshAddress, type SettlementFixture, settlementFixtureForFile, USDC } from '../support/settlement-fixture';

// The merchant's ledger against the chain: payouts sent for real on a local chain by the settlement
// worker, the ledger exported by `gateway ledger export` (a process, the owner's login, as an
// operator runs it), read back as CSV, and what it says the merchant received is what the chain
// shows in the merchant's wallet.

jest.setTimeout(180_000);

let fixture: SettlementFixture;
settlementFixtureForFile('ledger_chain', (started) => (fixture = started));

const sum = (values: string[]) => values.reduce((total, value) => total + parseUsdc(value), 0n);

it("sums the merchant's payouts to what the chain shows in the merchant's wallet, leg by leg", async () => {
  await fixture.startApp();
  const payoutAddress = freshAddress();
  const affiliate = freshAddress();
  const plain = await fixture.createWallet({ payoutAddress });
  const withAffiliate = await fixture.createWallet({ payoutAddress, affiliate: { address: affiliate, bps: 50 } });
  const another = await fixture.createWallet({ payoutAddress, platformFeeBps: 250 });
  // Two deposits into one order, odd amounts so that every leg rounds.
  await fixture.depositPaidOut(plain, 10n * USDC + 7n);
  await fixture.depositPaidOut(plain, 3n * USDC + 333_333n);
  await fixture.depositPaidOut(withAffiliate, 25n * USDC + 1n);
  await fixture.depositPaidOut(another, 4n * USDC + 999_999n);
  // Another merchant's order, in the same range: not in this ledger.
  await fixture.depositPaidOut(await fixture.createWallet(), 5n * USDC);

  const day = 86_400_000;
  const env = { DATABASE_URL: fixture.db.connectionString, DATABASE_SCHEMA: fixture.db.schema };
  const from = new Date(Date.now() - day).toISOString();
  const to = new Date(Date.now() + day).toISOString();
  const run = await runGateway(['ledger', 'export', '--payout-address', payoutAddress, '--from', from, '--to', to], env);
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
  const rows = parseCsvObjects(run.stdout);
  expect(rows.map((row) => row.order_id)).toEqual([plain.id, withAffiliate.id, another.id]);

  const merchantPaid = sum(rows.map((row) => row.merchant_paid_usdc!));
  expect(merchantPaid).toBe(await fixture.usdcBalance(payoutAddress));
  expect(sum(rows.map((row) => row.affiliate_paid_usdc!))).toBe(await fixture.usdcBalance(affiliate));
  // Every unit of every deposit is accounted for: merchant, platform and affiliate legs add up to the deposits.
  const legs = ['merchant_paid_usdc', 'platform_paid_usdc', 'affiliate_paid_usdc'] as const;
  expect(legs.map((column) => sum(rows.map((row) => row[column]!))).reduce((a, b) => a + b)).toBe(sum(rows.map((row) => row.total_usdc!)));
  expect(rows.map((row) => row.unconfirmed_payout_legs)).toEqual(['0', '0', '0']);
  // The transactions it names are the chain's, each mined.
  const merchantTxs = rows.flatMap((row) => row.merchant_payout_tx_hashes!.split(' '));
  expect(merchantTxs).toHaveLength(4);
  for (const hash of merchantTxs) expect((await fixture.rpc.getTransactionReceipt({ hash: hash as Hash })).status).toBe('success');
});
