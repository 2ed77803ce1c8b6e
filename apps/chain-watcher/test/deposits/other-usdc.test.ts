import { waitFor } from '@gateway/testkit';
import type { FastifyInstance } from 'fastify';
import type { Address } from 'viem';
import { settlementJobId } from '@gateway/queue';
import { FINALIZED_LAG } from '../support/local-chain';
import { insertWallet } from '../support/wallets';
import { cursorBlock, metricValue, useWatcherBed } from '../support/watcher-fixture';
import { expectDroppedDepositOrphaned } from '../support/dropped-deposit';

// The other Polygon USDC (USDC.e) on a real local chain: a second TestUSDC plays it. The watcher
// reads both tokens' Transfer logs with one eth_getLogs per range, records the token on each
// deposit, and follows confirmations, finality and reorgs for both alike.

jest.setTimeout(60_000);

const bed = useWatcherBed('watcher_other_usdc', { throughProxy: true });
let other: Address;
let app: FastifyInstance;
/** The address filter of every eth_getLogs the watcher sent. */
const logFilters: unknown[] = [];

beforeAll(async () => {
  other = await bed.chain.deployForeignToken();
  // A hook that never fires: it only looks at every call on its way through.
  bed.proxy.beforeCall(
    (call) => {
      if (call.method === 'eth_getLogs') logFilters.push(((call.params?.[0] ?? {}) as { address?: unknown }).address);
      return false;
    },
    async () => undefined,
  );
  app = await bed.watch({ OTHER_USDC_TOKEN_ADDRESS: other });
});

interface TokenDeposit {
  id: string;
  token: string | null;
  amount: string;
  status: string;
}

async function depositsOf(walletId: string): Promise<TokenDeposit[]> {
  const { rows } = await bed.db.pool.query<TokenDeposit>(
    'SELECT id::text AS id, token, amount::text AS amount, status FROM deposits WHERE wallet_id = $1 ORDER BY id',
    [walletId],
  );
  return rows;
}

const statusOf = async (walletId: string) => (await depositsOf(walletId))[0]?.status;

it('records a USDC.e transfer into a temporary wallet with its token, beside a USDC one, from one eth_getLogs per range', async () => {
  const wallet = await insertWallet(bed.db.pool);
  const callsBefore = logFilters.length;
  const bridged = await bed.chain.sendToken(other, wallet.address, 12_000_000n);
  const native = await bed.chain.sendUsdc(wallet.address, 3_000_000n);

  const rows = await waitFor('both deposits seen', async () => {
    const found = await depositsOf(wallet.id);
    return found.length === 2 ? found : undefined;
  });
  expect(rows).toEqual([
    { id: expect.any(String), token: other.toLowerCase(), amount: '12000000', status: 'seen' },
    { id: expect.any(String), token: bed.chain.token.toLowerCase(), amount: '3000000', status: 'seen' },
  ]);
  expect(bridged.blockNumber).toBeLessThan(native.blockNumber);
  // Every range read both contracts at once: never one call per token.
  const filters = logFilters.slice(callsBefore);
  expect(filters.length).toBeGreaterThan(0);
  for (const filter of filters) expect(filter).toEqual([bed.chain.token.toLowerCase(), other.toLowerCase()]);
  expect(await metricValue(app, 'chain_watcher_other_token_deposits_total')).toBe(1);
});

it('makes a USDC.e deposit final like any deposit and queues its settlement job (settlement holds it)', async () => {
  const wallet = await insertWallet(bed.db.pool);
  await bed.chain.sendToken(other, wallet.address, 5_000_000n);
  await waitFor('the deposit seen', async () => (await statusOf(wallet.id)) === 'seen');
  await bed.chain.mine(FINALIZED_LAG);
  await waitFor('the deposit final', async () => (await statusOf(wallet.id)) === 'final');
  const [deposit] = await depositsOf(wallet.id);
  const job = await waitFor('its settlement job', async () => bed.queue.getJob(settlementJobId(deposit!.id)));
  expect(job.data).toEqual({ depositId: deposit!.id });
});

it('orphans a USDC.e deposit a reorg dropped, like any deposit, and queues nothing for it', async () => {
  const wallet = await insertWallet(bed.db.pool);
  await expectDroppedDepositOrphaned(bed, app, wallet.id, () => bed.chain.sendToken(other, wallet.address, 7_000_000n));
});

it("checks a USDC.e deposit against its own token's logs in its receipt: one wrong block-hash answer does not orphan it", async () => {
  const wallet = await insertWallet(bed.db.pool);
  const receipt = await bed.chain.sendToken(other, wallet.address, 6_000_000n);
  await bed.chain.mine(3);
  const head = await bed.chain.head();
  await waitFor('the deposit seen and the cursor past it', async () => (await statusOf(wallet.id)) === 'seen' && cursorBlock(app) >= head);
  const orphanedBefore = await metricValue(app, 'chain_watcher_deposits_total', { status: 'orphaned' });
  const misreported = bed.proxy.misreported;
  // The receipt still places the transfer in its block (read in USDC.e's logs, not USDC's): not orphaned.
  bed.proxy.misreportBlockHash(receipt.blockNumber);
  await waitFor('the wrong answer given', async () => bed.proxy.misreported > misreported);
  await bed.chain.mine(FINALIZED_LAG);
  await waitFor('the deposit final', async () => (await statusOf(wallet.id)) === 'final');
  expect(await metricValue(app, 'chain_watcher_deposits_total', { status: 'orphaned' })).toBe(orphanedBefore);
});
