import { waitFor } from '@gateway/testkit';
import { Registry } from 'prom-client';
import { setTestUsdcBlacklisted } from '@gateway/chain';
import { type SettlementFixture, settlementFixtureForFile, USDC } from '../support/settlement-fixture';
import { type CliRun, runGateway } from '@gateway/app-testkit';
import { replanDeposit } from '../../src/operator';

jest.setTimeout(180_000);

let fixture: SettlementFixture;

settlementFixtureForFile('replan-crash', (started) => (fixture = started));

afterEach(() => fixture.settlementQueue.obliterate({ force: true }));

function replanCommand(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runGateway(['deposits', 'replan', ...args], fixture.env(env));
}

/** The relayer transactions recorded for cancellations, as the outbox left them. */
async function cancellations(depositId: string): Promise<Array<{ status: string; tx_hash: string }>> {
  const transactions = await fixture.transactionsOf(depositId);
  return transactions.filter((t) => t.reason === 'cancel').map(({ status, tx_hash }) => ({ status, tx_hash }));
}

describe('the replan command killed (SIGKILL) while it cancels through the relayer outbox', () => {
  it.each(['before-broadcast', 'after-broadcast'] as const)(
    'at %s: run again, it sends the recorded cancellation (never a second one) and pays once',
    async (point) => {
      const { wallet, deposit } = await fixture.payoutAddressBlocked(4n * USDC);
      await setTestUsdcBlacklisted(fixture.tokenAdmin, wallet.payoutAddress, false);

      const killed = await replanCommand([deposit.id], { SETTLEMENT_CRASH_AT: point });
      expect({ signal: killed.signal, output: killed.signal === 'SIGKILL' ? '' : killed.output }).toEqual({
        signal: 'SIGKILL',
        output: '',
      });
      // Recorded before it was broadcast; the process died before noting it sent.
      const [recorded, ...more] = await cancellations(deposit.id);
      expect(more).toEqual([]);
      expect(recorded).toMatchObject({ status: 'recorded' });
      const mined = await fixture.rpc.getTransactionReceipt({ hash: recorded!.tx_hash as `0x${string}` }).then(
        () => 'mined',
        () => 'unknown',
      );
      expect(mined).toBe(point === 'after-broadcast' ? 'mined' : 'unknown');

      const resumed = await replanCommand([deposit.id]);
      expect(resumed.output).toContain(`deposit ${deposit.id} re-planned (2 new leg(s)) and queued`);
      expect(resumed.code).toBe(0);
      expect(await cancellations(deposit.id)).toEqual([{ status: 'mined', tx_hash: recorded!.tx_hash }]);

      await fixture.waitForStatus(deposit.id, 'forwarded', 30_000);
      await waitFor('the temporary wallet emptied', async () => (await fixture.usdcBalance(wallet.address)) === 0n, 20_000);
      expect(await fixture.usdcBalance(wallet.payoutAddress)).toBe(3_960_000n);
      const legs = (await fixture.legsOf(deposit.id)).filter((leg) => leg.status !== 'cancelled');
      const uses = await fixture.authorizationUses(wallet.address);
      expect(legs.map((leg) => uses.get(leg.authorization_nonce))).toEqual([1, 1]);
      expect(uses.size).toBe(2);
    },
  );

  it('counts its relayer transactions like the worker does (settlement_relayer_transactions_total{kind="cancel"})', async () => {
    const { wallet, deposit } = await fixture.payoutAddressBlocked(2n * USDC);
    await setTestUsdcBlacklisted(fixture.tokenAdmin, wallet.payoutAddress, false);
    const registry = new Registry();
    const outcome = await replanDeposit(
      fixture.config(),
      fixture.db.appPool('settlement-worker'),
      deposit.id,
      { timeoutMs: 30_000, report: () => undefined },
      registry,
    );
    expect(outcome).toMatchObject({ result: 'replanned' });
    expect(await registry.metrics()).toMatch(/^settlement_relayer_transactions_total\{[^}]*kind="cancel"[^}]*\} 1$/m);
  });
});
