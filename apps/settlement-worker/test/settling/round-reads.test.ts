import type { Pool, QueryConfig } from 'pg';
import { setTestUsdcBlacklisted } from '@gateway/chain';
import type { FastifyInstance } from 'fastify';
import { sleep } from '@gateway/testkit';
import { type SettlementFixture, settlementFixtureForFile, USDC } from '../support/settlement-fixture';

jest.setTimeout(120_000);

let fixture: SettlementFixture;

settlementFixtureForFile('roundreads', (started) => (fixture = started));

/** The app's pool, counting the statements that read payout legs (`SELECT … FROM payouts`). */
function countingLegReads(pool: Pool): { pool: Pool; reads: () => number; reset: () => void } {
  let reads = 0;
  const readsLegs = (query: unknown) => {
    const text = typeof query === 'string' ? query : (query as QueryConfig | undefined)?.text;
    return typeof text === 'string' && /^\s*SELECT\b[\s\S]*\bFROM payouts\b/i.test(text);
  };
  const counting = new Proxy(pool, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property === 'query') {
        return (...args: unknown[]) => {
          if (readsLegs(args[0])) reads += 1;
          return (target.query as (...queryArgs: unknown[]) => unknown)(...args);
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { pool: counting, reads: () => reads, reset: () => (reads = 0) };
}

let app: FastifyInstance | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** Runs rounds of the deposit's job (the app's service, no queue) until `until`; the leg reads of each round. */
async function legReadsPerRound(depositId: string, counter: ReturnType<typeof countingLegReads>, until: string): Promise<number[]> {
  const perRound: number[] = [];
  for (let round = 0; round < 20; round += 1) {
    counter.reset();
    const outcome = await app!.settlementService.settle(depositId);
    perRound.push(counter.reads());
    if (outcome === until) return perRound;
    await sleep(100);
  }
  throw new Error(`deposit ${depositId} did not reach ${until} in 20 rounds (leg reads ${perRound.join(', ')})`);
}

describe('one settlement round reads its legs once', () => {
  it('planning, sending, confirming and forwarding: one read of the legs in every round', async () => {
    const counter = countingLegReads(fixture.db.appPool('settlement-worker'));
    app = await fixture.buildApp({}, counter.pool);
    const wallet = await fixture.createWallet();
    const deposit = await fixture.deposit(wallet, 5n * USDC);

    const perRound = await legReadsPerRound(deposit.id, counter, 'forwarded');

    expect(perRound.length).toBeGreaterThanOrEqual(2);
    expect(perRound).toEqual(perRound.map(() => 1));
    expect(await fixture.depositStatus(deposit.id)).toBe('forwarded');
    expect(await fixture.deliveryOf(deposit.id)).toHaveLength(1);
  });

  it("a merchant's leg that needs attention moves the deposit with one read of the legs", async () => {
    const counter = countingLegReads(fixture.db.appPool('settlement-worker'));
    app = await fixture.buildApp({}, counter.pool);
    const wallet = await fixture.createWallet();
    await setTestUsdcBlacklisted(fixture.tokenAdmin, wallet.payoutAddress, true);
    const deposit = await fixture.deposit(wallet, 5n * USDC);

    const perRound = await legReadsPerRound(deposit.id, counter, 'needs_attention');

    expect(perRound).toEqual(perRound.map(() => 1));
    expect(await fixture.depositStatus(deposit.id)).toBe('needs_attention');
  });
});
