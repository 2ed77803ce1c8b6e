import { webhookPaymentLookup } from '../src';

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
