import { AFFILIATE_CONSENT_PURPOSE, affiliateConsentMessage, signAffiliateConsent, type AffiliateConsentInput } from '../src';

// The text is a contract with every gateway that verifies it: written out here by hand, line by line.
const input: AffiliateConsentInput = {
  payoutAddress: '0x52908400098527886E0F7030069857D2E4169EE7',
  affiliateAddress: '0x8ba1f109551bD432803012645Ac136ddd64DBA72',
  merchantFee: '0.98',
  affiliateFee: '0.01',
  callbackUrl: 'https://shop.example/ipn?order_id=1234&Key=A%20b',
};
const EXPECTED = [
  'Card-to-USDC gateway: consent to affiliate terms (v1)',
  'payout: 0x52908400098527886e0f7030069857d2e4169ee7',
  'affiliate: 0x8ba1f109551bd432803012645ac136ddd64dba72',
  'merchant_fee: 0.98',
  'affiliate_fee: 0.01',
  'callback: https://shop.example/ipn?order_id=1234&Key=A%20b',
].join('\n');

describe('affiliateConsentMessage', () => {
  it('is the purpose and every term, one per line, addresses lower-cased, the callback exactly as given', () => {
    expect(AFFILIATE_CONSENT_PURPOSE).toBe('Card-to-USDC gateway: consent to affiliate terms (v1)');
    expect(affiliateConsentMessage(input)).toBe(EXPECTED);
  });

  it.each([
    ['0.9800', '0.98'],
    ['0.98', '0.98'],
    ['1', '1'],
    ['1.0000', '1'],
    ['0', '0'],
    ['0.0', '0'],
    ['0.0005', '0.0005'],
    ['00.5', '0.5'],
    ['0.500000000000', '0.5'],
  ])('writes the fee %s as the gateway does: %s', (given, written) => {
    const lines = affiliateConsentMessage({ ...input, merchantFee: given, affiliateFee: given }).split('\n');
    expect(lines[3]).toBe(`merchant_fee: ${written}`);
    expect(lines[4]).toBe(`affiliate_fee: ${written}`);
  });

  it.each(['1.0001', '2', '0.00005', '-0.1', '.5', '0.', '0,5', '1e-2', ' 0.5', '', '0.5000000000001'])(
    'refuses the fee %j the gateway would refuse, naming the field',
    (fee) => {
      expect(() => affiliateConsentMessage({ ...input, merchantFee: fee })).toThrow(
        new RangeError('merchantFee must be a decimal fraction between 0 and 1 with at most 4 decimals, e.g. 0.98'),
      );
      expect(() => affiliateConsentMessage({ ...input, affiliateFee: fee })).toThrow(/^affiliateFee must be a decimal fraction/);
    },
  );

  it.each([
    '0x5290840009852788',
    '52908400098527886E0F7030069857D2E4169EE7',
    '0x52908400098527886E0F7030069857D2E4169EEG',
    ' 0x52908400098527886E0F7030069857D2E4169EE7',
    '0x52908400098527886E0F7030069857D2E4169EE7a',
  ])('refuses the address %j, naming the field', (address) => {
    expect(() => affiliateConsentMessage({ ...input, payoutAddress: address })).toThrow(
      new RangeError('payoutAddress must be 0x followed by 40 hexadecimal characters'),
    );
    expect(() => affiliateConsentMessage({ ...input, affiliateAddress: address })).toThrow(/^affiliateAddress must be 0x/);
  });
});

describe('signAffiliateConsent', () => {
  it('asks the signer for a personal_sign of exactly that message and returns its signature', async () => {
    const asked: string[] = [];
    const signature = `0x${'ab'.repeat(65)}`;
    const signer = {
      signMessage: async ({ message }: { message: string }) => {
        asked.push(message);
        return signature;
      },
    };
    await expect(signAffiliateConsent(input, signer)).resolves.toBe(signature);
    expect(asked).toEqual([EXPECTED]);
  });

  it('never asks the signer when the terms are not ones the gateway accepts', async () => {
    const signer = { signMessage: jest.fn(async () => '0x') };
    expect(() => signAffiliateConsent({ ...input, merchantFee: '1.5' }, signer)).toThrow(RangeError);
    expect(signer.signMessage).not.toHaveBeenCalled();
  });
});
