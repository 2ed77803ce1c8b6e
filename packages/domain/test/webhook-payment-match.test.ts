import { type ProviderPaymentStatus, webhookMayUpdatePayment, webhookPaymentLookup } from '../src';

const PAYMENT_ID = '6F1C2B9E-4D3A-4E8B-9A7C-2F5D8E1B3C40';
const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';

describe('webhookPaymentLookup: which payment a provider webhook may update', () => {
  it('a webhook naming our payment id: exactly that payment, whatever else it carries', () => {
    expect(webhookPaymentLookup({ paymentId: PAYMENT_ID, providerReference: 'mp-1', walletAddress: WALLET })).toEqual({
      by: 'payment_id',
      paymentId: PAYMENT_ID.toLowerCase(),
    });
  });

  it('an id that cannot be one of ours names no payment: no fall back to the reference or the wallet', () => {
    for (const paymentId of ['order-1234', `${PAYMENT_ID}0`, `{${PAYMENT_ID}}`, ` ${PAYMENT_ID}`, "x' OR 1=1 --"]) {
      expect(webhookPaymentLookup({ paymentId, providerReference: 'mp-1', walletAddress: WALLET })).toEqual({ by: 'nothing' });
    }
  });

  it("without our id: the provider's reference and the wallet, lower-cased; an empty id is no id", () => {
    expect(webhookPaymentLookup({ paymentId: '', providerReference: 'ramp-A', walletAddress: WALLET })).toEqual({
      by: 'provider_reference_or_wallet',
      providerReference: 'ramp-A',
      walletAddress: WALLET.toLowerCase(),
    });
    expect(webhookPaymentLookup({ walletAddress: WALLET })).toEqual({
      by: 'provider_reference_or_wallet',
      providerReference: null,
      walletAddress: WALLET.toLowerCase(),
    });
    expect(webhookPaymentLookup({ providerReference: 'bx-77', walletAddress: 'not an address' })).toEqual({
      by: 'provider_reference_or_wallet',
      providerReference: 'bx-77',
      walletAddress: null,
    });
  });

  it('nothing to go by: nothing', () => {
    expect(webhookPaymentLookup({})).toEqual({ by: 'nothing' });
    expect(webhookPaymentLookup({ providerReference: '', walletAddress: `${WALLET}00` })).toEqual({ by: 'nothing' });
    expect(webhookPaymentLookup({ walletAddress: WALLET.slice(0, -1) })).toEqual({ by: 'nothing' });
    expect(webhookPaymentLookup({ walletAddress: `00${WALLET}` })).toEqual({ by: 'nothing' });
  });
});

describe('webhookMayUpdatePayment: whether the payment found may take what the webhook says', () => {
  const terminal: ProviderPaymentStatus[] = ['paid', 'declined', 'failed'];
  const underWay: ProviderPaymentStatus[] = ['pending', 'charged'];

  it('found by our id: yes, whatever it says', () => {
    for (const status of [...terminal, ...underWay]) {
      expect(webhookMayUpdatePayment({ by: 'payment_id', recordedReference: 'ramp-A' }, { providerReference: 'ramp-B', status })).toBe(
        true,
      );
    }
  });

  it("found by the wallet alone (no reference recorded): only a report under way, which names the payment (Ramp's CREATED)", () => {
    for (const status of underWay) {
      expect(webhookMayUpdatePayment({ by: 'wallet', recordedReference: null }, { providerReference: 'ramp-A', status })).toBe(true);
      expect(webhookMayUpdatePayment({ by: 'wallet', recordedReference: null }, { providerReference: null, status })).toBe(true);
    }
    // Anyone can open a purchase to a known wallet: its outcome is not this customer's until the payment carries its reference.
    for (const status of terminal) {
      expect(webhookMayUpdatePayment({ by: 'wallet', recordedReference: null }, { providerReference: 'ramp-X', status })).toBe(false);
      expect(webhookMayUpdatePayment({ by: 'wallet', recordedReference: null }, { providerReference: null, status })).toBe(false);
    }
  });

  it('a payment that carries a reference takes reports of that reference only', () => {
    for (const status of [...terminal, ...underWay]) {
      expect(
        webhookMayUpdatePayment({ by: 'provider_reference', recordedReference: 'ramp-A' }, { providerReference: 'ramp-A', status }),
      ).toBe(true);
      // Named by another webhook while this one, found by the wallet, waited for the row.
      expect(webhookMayUpdatePayment({ by: 'wallet', recordedReference: 'ramp-A' }, { providerReference: 'ramp-B', status })).toBe(false);
      expect(webhookMayUpdatePayment({ by: 'wallet', recordedReference: 'ramp-A' }, { providerReference: null, status })).toBe(false);
    }
  });
});
