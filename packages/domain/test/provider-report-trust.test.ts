import {
  destinationMismatch,
  judgeProviderReport,
  providerStatusMove,
  reportReplayKey,
  type PaymentUnderReport,
  type ProviderPaymentStatus,
  type ProviderReportFacts,
} from '../src';

const WALLET = '0x1111111111111111111111111111111111111111';
const STRANGER = '0x2222222222222222222222222222222222222222';
const ALL: ProviderPaymentStatus[] = ['pending', 'charged', 'paid', 'declined', 'failed'];

const payment = (over: Partial<PaymentUnderReport> = {}): PaymentUnderReport => ({
  walletAddress: WALLET,
  providerStatus: null,
  providerReference: null,
  foundBy: 'payment_id',
  ...over,
});
const report = (over: Partial<ProviderReportFacts> = {}): ProviderReportFacts => ({
  status: 'paid',
  providerReference: 'order-A',
  destination: { address: WALLET },
  destinationDocumented: true,
  refunded: false,
  untimed: false,
  ...over,
});

describe('destinationMismatch: the order delivers USDC on Polygon to the payment wallet', () => {
  it('accepts the wallet in any case, Polygon and USDC in the providers’ spellings', () => {
    expect(destinationMismatch(WALLET, { address: WALLET.toUpperCase().replace('0X', '0x') })).toBeUndefined();
    for (const network of ['polygon', 'MATIC', 'Polygon PoS', 'polygon_mainnet', 'MATIC-MAINNET', '137']) {
      expect([network, destinationMismatch(WALLET, { network })]).toEqual([network, undefined]);
    }
    for (const asset of ['USDC', 'usdc', 'MATIC_USDC', 'USDCPOLYGON', 'USDC.e']) {
      expect([asset, destinationMismatch(WALLET, { asset })]).toEqual([asset, undefined]);
    }
    expect(destinationMismatch(WALLET, undefined)).toBeUndefined();
  });

  it('names what differs: another wallet, network or asset', () => {
    expect(destinationMismatch(WALLET, { address: STRANGER })).toBe('the order delivers to another wallet');
    expect(destinationMismatch(WALLET, { address: WALLET, network: 'ethereum' })).toBe('the order delivers on another network');
    expect(destinationMismatch(WALLET, { address: WALLET, network: 'polygon', asset: 'USDT' })).toBe('the order delivers another asset');
    expect(destinationMismatch(WALLET, { asset: 'ETH_USDC' })).toBe('the order delivers another asset');
  });
});

describe('judgeProviderReport: does the report belong to this payment', () => {
  it('a relabelled order (our payment id, another destination) is not this payment’s, whatever it says', () => {
    for (const status of ALL) {
      expect(judgeProviderReport(payment(), report({ status, destination: { address: STRANGER } }))).toEqual({
        kind: 'not_this_payment',
        why: 'the order delivers to another wallet',
      });
    }
  });

  it('pins the first order id seen, then follows only that one', () => {
    expect(judgeProviderReport(payment(), report({ status: 'pending', providerReference: 'order-A' }))).toEqual({
      kind: 'record',
      pin: 'order-A',
    });
    const pinned = payment({ providerStatus: 'pending', providerReference: 'order-A' });
    for (const providerReference of ['order-B', null]) {
      expect(judgeProviderReport(pinned, report({ providerReference }))).toMatchObject({ kind: 'not_this_payment' });
    }
    expect(judgeProviderReport(pinned, report())).toEqual({ kind: 'record', pin: 'order-A' });
  });

  it('before any report, the reference is only the last checkout’s: an earlier checkout’s order may be the one reported', () => {
    const renewed = payment({ providerReference: 'session-2' });
    expect(judgeProviderReport(renewed, report({ providerReference: 'session-1' }))).toEqual({ kind: 'record', pin: 'session-1' });
    expect(judgeProviderReport(renewed, report({ providerReference: null }))).toEqual({ kind: 'record', pin: 'session-2' });
    // Still only to the payment's wallet.
    expect(judgeProviderReport(renewed, report({ providerReference: 'x', destination: { address: STRANGER } }))).toMatchObject({
      kind: 'not_this_payment',
    });
  });

  it('a provider that documents the destination is not trusted with charged or paid without it', () => {
    for (const status of ['charged', 'paid'] as const) {
      expect(judgeProviderReport(payment(), report({ status, destination: undefined }))).toMatchObject({ kind: 'not_this_payment' });
      expect(judgeProviderReport(payment(), report({ status, destination: { network: 'polygon' } }))).toMatchObject({
        kind: 'not_this_payment',
      });
      // One whose reports carry no destination is judged by its order id alone.
      expect(judgeProviderReport(payment(), report({ status, destination: undefined, destinationDocumented: false }))).toEqual({
        kind: 'record',
        pin: 'order-A',
      });
    }
    // A status under way or an end moves no money: recorded without a destination.
    expect(judgeProviderReport(payment(), report({ status: 'pending', destination: undefined }))).toMatchObject({ kind: 'record' });
  });

  it('found by the wallet alone (Ramp): a purchase may not end the payment, and only one that was charged or paid names it', () => {
    const byWallet = payment({ foundBy: 'wallet' });
    // A stranger's purchase to the customer's wallet, created first, then abandoned.
    expect(judgeProviderReport(byWallet, report({ status: 'pending', providerReference: 'ramp-X' }))).toEqual({
      kind: 'record',
      pin: null,
    });
    for (const status of ['declined', 'failed'] as const) {
      expect(judgeProviderReport(byWallet, report({ status, providerReference: 'ramp-X' }))).toMatchObject({ kind: 'not_this_payment' });
    }
    expect(judgeProviderReport(byWallet, report({ status: 'charged', providerReference: 'ramp-A' }))).toEqual({
      kind: 'record',
      pin: 'ramp-A',
    });
    // Once named, its own end is recorded, another purchase's is not.
    const named = payment({ foundBy: 'provider_reference', providerStatus: 'charged', providerReference: 'ramp-A' });
    expect(judgeProviderReport(named, report({ status: 'failed', providerReference: 'ramp-A', refunded: true }))).toMatchObject({
      kind: 'record',
    });
    expect(judgeProviderReport(named, report({ status: 'failed', providerReference: 'ramp-X', refunded: true }))).toMatchObject({
      kind: 'not_this_payment',
    });
  });

  it('a replayed decline after the charge is refused, and says why', () => {
    const charged = payment({ providerStatus: 'charged', providerReference: 'order-A' });
    expect(judgeProviderReport(charged, report({ status: 'declined' }))).toEqual({
      kind: 'unchanged',
      why: 'the card was charged: only a refund ends the payment',
    });
  });
});

describe('judgeProviderReport: why a report is refused, in words the webhook log and the tests share', () => {
  it('names each reason', () => {
    const pinned = payment({ providerStatus: 'pending', providerReference: 'order-A' });
    expect(judgeProviderReport(pinned, report({ providerReference: 'order-B' }))).toEqual({
      kind: 'not_this_payment',
      why: 'another order of the provider than the one the payment follows',
    });
    expect(judgeProviderReport(payment(), report({ destination: undefined }))).toEqual({
      kind: 'not_this_payment',
      why: 'the report names no destination wallet, which this provider documents',
    });
    expect(judgeProviderReport(payment({ foundBy: 'wallet' }), report({ status: 'declined' }))).toEqual({
      kind: 'not_this_payment',
      why: 'a purchase found by the wallet alone may not end the payment',
    });
    const paid = payment({ providerStatus: 'paid', providerReference: 'order-A' });
    expect(judgeProviderReport(paid, report({ status: 'declined' }))).toEqual({ kind: 'unchanged', why: 'paid is final' });
    expect(judgeProviderReport(pinned, report({ status: 'pending' }))).toEqual({ kind: 'record', pin: 'order-A' });
    const declined = payment({ providerStatus: 'declined', providerReference: 'order-A' });
    expect(judgeProviderReport(declined, report({ status: 'pending' }))).toEqual({ kind: 'unchanged', why: 'nothing returns to pending' });
    expect(judgeProviderReport(declined, report({ status: 'failed', untimed: true }))).toEqual({
      kind: 'unchanged',
      why: 'an untimed report may only move forward',
    });
  });

  it('a report about another order stays another order’s, even where its status could not have moved this payment', () => {
    const paid = payment({ providerStatus: 'paid', providerReference: 'order-A' });
    expect(judgeProviderReport(paid, report({ status: 'declined', providerReference: 'order-B' }))).toEqual({
      kind: 'not_this_payment',
      why: 'another order of the provider than the one the payment follows',
    });
  });
});

describe('providerStatusMove: the forward-only rule', () => {
  // Every move of a report with a signed time, no refund: [from][to]. paid is final; nothing returns to pending; once
  // charged, neither a decline nor a failure reopens the payment; another card may follow a refusal.
  const timed: Record<ProviderPaymentStatus, Record<ProviderPaymentStatus, boolean>> = {
    pending: { pending: true, charged: true, paid: true, declined: true, failed: true },
    charged: { pending: false, charged: true, paid: true, declined: false, failed: false },
    paid: { pending: false, charged: false, paid: false, declined: false, failed: false },
    declined: { pending: false, charged: true, paid: true, declined: true, failed: true },
    failed: { pending: false, charged: true, paid: true, declined: true, failed: true },
  };
  // Without a signed time (a replay cannot be told from news): strictly a later step only.
  const untimed: Record<ProviderPaymentStatus, Record<ProviderPaymentStatus, boolean>> = {
    pending: { pending: false, charged: true, paid: true, declined: true, failed: true },
    charged: { pending: false, charged: false, paid: true, declined: false, failed: false },
    paid: { pending: false, charged: false, paid: false, declined: false, failed: false },
    declined: { pending: false, charged: true, paid: true, declined: false, failed: false },
    failed: { pending: false, charged: true, paid: true, declined: false, failed: false },
  };
  const allowed = (from: ProviderPaymentStatus, to: ProviderPaymentStatus, context: { refunded: boolean; untimed: boolean }) =>
    providerStatusMove(from, to, context).allowed;

  it('allows exactly the moves of each table, for every pair of statuses', () => {
    for (const from of ALL) {
      for (const to of ALL) {
        expect([from, to, allowed(from, to, { refunded: false, untimed: false })]).toEqual([from, to, timed[from][to]]);
        expect([from, to, allowed(from, to, { refunded: false, untimed: true })]).toEqual([from, to, untimed[from][to]]);
      }
    }
  });

  it('a refund after the charge ends it as failed, never as declined, and never undoes paid', () => {
    for (const untimedReport of [false, true]) {
      expect(allowed('charged', 'failed', { refunded: true, untimed: untimedReport })).toBe(true);
      expect(allowed('charged', 'declined', { refunded: true, untimed: untimedReport })).toBe(false);
      expect(allowed('paid', 'failed', { refunded: true, untimed: untimedReport })).toBe(false);
    }
  });

  it('records any first status', () => {
    for (const to of ALL) expect(providerStatusMove(null, to, { refunded: false, untimed: true })).toEqual({ allowed: true });
  });
});

describe('reportReplayKey', () => {
  it('the provider’s event id where sent, else the order and its status word; nothing without an order', () => {
    expect(reportReplayKey({ eventId: 'ev-1', providerReference: 'OR-1', rawStatus: 'fund_failed' })).toBe('event:ev-1');
    expect(reportReplayKey({ providerReference: 'OR-1', rawStatus: 'fund_failed' })).toBe('order:OR-1:fund_failed');
    expect(reportReplayKey({ providerReference: null, rawStatus: 'fund_failed' })).toBeUndefined();
  });
});
