import { receiptProgress, type ReceiptDeposit } from '../src';

/** What the receipt of a paid order with these deposits (status, amount) waits on. */
const paidWaitingOn = (...deposits: [ReceiptDeposit['status'], bigint][]) =>
  receiptProgress(
    'paid',
    deposits.map(([status, amount]) => ({ status, amount })),
  ).waitingOn;

describe('receiptProgress', () => {
  it('waits for the provider until USDC arrives, and says when the card was declined', () => {
    expect(receiptProgress(null, [])).toMatchObject({ step: 'waiting_for_provider', declined: false, final: false, receivedUsdc: 0n });
    expect(receiptProgress('pending', [])).toMatchObject({ step: 'waiting_for_provider', declined: false });
    expect(receiptProgress('declined', [])).toMatchObject({ step: 'waiting_for_provider', declined: true, final: false });
    expect(receiptProgress('failed', [])).toMatchObject({ step: 'waiting_for_provider', declined: true, final: false });
    expect(receiptProgress('paid', [])).toMatchObject({ step: 'waiting_for_provider', declined: false });
  });

  it('follows a deposit from received to sent, whatever the provider said', () => {
    expect(receiptProgress('declined', [{ status: 'seen', amount: 5n }])).toMatchObject({
      step: 'usdc_received',
      declined: false,
      receivedUsdc: 5n,
    });
    expect(receiptProgress(null, [{ status: 'final', amount: 5n }]).step).toBe('confirmed');
    expect(receiptProgress(null, [{ status: 'forwarding', amount: 5n }]).step).toBe('confirmed');
    expect(receiptProgress('paid', [{ status: 'forwarded', amount: 5n }])).toMatchObject({ step: 'sent_to_merchant', final: true });
  });

  it('shows the step every deposit has reached, sums them, and ignores orphaned ones', () => {
    const progress = receiptProgress('paid', [
      { status: 'forwarded', amount: 10n },
      { status: 'seen', amount: 3n },
      { status: 'orphaned', amount: 100n },
    ]);
    expect(progress).toMatchObject({ step: 'usdc_received', receivedUsdc: 13n, deposits: 2, final: false });
    expect(receiptProgress(null, [{ status: 'orphaned', amount: 1n }]).step).toBe('waiting_for_provider');
  });

  it('says a held deposit waits for the next deposit into its wallet, and stops following it', () => {
    expect(receiptProgress(null, [{ status: 'held', amount: 1n }])).toMatchObject({
      step: 'confirmed',
      waitingOn: 'next_deposit',
      final: true,
    });
    // One held deposit beside forwarded ones is enough to wait on.
    expect(
      receiptProgress(null, [
        { status: 'forwarded', amount: 5n },
        { status: 'held', amount: 1n },
      ]),
    ).toMatchObject({ waitingOn: 'next_deposit', final: true });
  });

  it('says a deposit whose payout will not succeed (needs_attention) waits for the operator, not that it was sent', () => {
    expect(receiptProgress('paid', [{ status: 'needs_attention', amount: 5n }])).toMatchObject({
      step: 'confirmed',
      waitingOn: 'operator',
      final: true,
    });
    expect(paidWaitingOn(['held', 1n], ['needs_attention', 5n])).toBe('operator');
    expect(paidWaitingOn(['forwarded', 5n])).toBeNull();
  });

  it('says a deposit of the other USDC (held_for_operator) arrived and waits for the operator, ahead of any other wait', () => {
    expect(receiptProgress('paid', [{ status: 'held_for_operator', amount: 5n }])).toMatchObject({
      step: 'confirmed',
      waitingOn: 'other_token',
      final: true,
      receivedUsdc: 5n,
    });
    expect(paidWaitingOn(['needs_attention', 5n], ['held_for_operator', 2n])).toBe('other_token');
    // Still on its way to final: the page keeps refreshing.
    expect(
      receiptProgress('paid', [
        { status: 'held_for_operator', amount: 2n },
        { status: 'seen', amount: 5n },
      ]),
    ).toMatchObject({ step: 'usdc_received', final: false });
  });
});
