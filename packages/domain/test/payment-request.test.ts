import { createSealingKeyRing, sealAddressIn } from '../src/address-in-codec';
import type { EvmAddress } from '../src/evm-address';
import { parseRate } from '../src/money';
import { openTemporaryAddress, parsePaymentRequest, type PaymentRequestQuery } from '../src/payment-request';
import type { RateTable } from '../src/provider-terms';
import { sampleCatalogue } from './support/sample-providers';

const temporary = '0x8ba1f109551bd432803012645ac136ddd64dba72' as EvmAddress;
const keys = createSealingKeyRing([{ id: 'k1', key: Buffer.alloc(32, 7) }]);
const rates: RateTable = new Map([['EUR', parseRate('0.92')]]);
const context = { keys, rates, providers: sampleCatalogue() };
const query: PaymentRequestQuery = {
  address: sealAddressIn(temporary, keys),
  amount: '25',
  provider: 'MoonPay',
  email: 'jane@shop.io',
  currency: 'eur',
};

describe('parsePaymentRequest (Process Payment)', () => {
  it('opens the wallet token and reads the order', () => {
    const request = parsePaymentRequest(query, context);
    expect(request).toMatchObject({ temporaryAddress: temporary, amount: { minorUnits: 2_500n }, currency: 'EUR', email: 'jane@shop.io' });
    expect(request.provider.id).toBe('moonpay');
  });

  it("checks the wallet token before the order, then amount, provider, currency, the provider's rules and the e-mail", () => {
    const broken = { address: temporary, amount: 'ten', provider: 'nobody', currency: 'EURO', email: 'jane' };
    const firstRefusal = (change: Partial<PaymentRequestQuery>) => {
      try {
        parsePaymentRequest({ ...query, ...change }, context);
      } catch (error) {
        return (error as { code: string; param: string }).param;
      }
      return undefined;
    };
    expect(firstRefusal(broken)).toBe('address');
    expect(firstRefusal({ ...broken, address: query.address })).toBe('amount');
    expect(firstRefusal({ provider: 'nobody', currency: 'EURO', email: 'jane' })).toBe('provider');
    expect(firstRefusal({ currency: 'EURO', email: 'jane' })).toBe('currency');
    expect(firstRefusal({ provider: 'wert', email: 'jane' })).toBe('currency');
    expect(firstRefusal({ amount: '1', email: 'jane' })).toBe('amount');
    expect(firstRefusal({ email: 'jane' })).toBe('email');
  });
});

describe('openTemporaryAddress', () => {
  it('refuses a plain 0x address: the payout address sent by mistake', () => {
    expect(() => openTemporaryAddress(temporary, keys)).toThrow(
      expect.objectContaining({
        code: 'payout_address_not_accepted',
        statusCode: 400,
        param: 'address',
        message:
          'address must be the encrypted address_in returned by Create Wallet (/control/wallet.php), URL-encoded; a plain 0x wallet ' +
          'address is not accepted here',
      }),
    );
  });

  it('refuses a token this gateway did not seal, or one altered on the way', () => {
    const other = createSealingKeyRing([{ id: 'k1', key: Buffer.alloc(32, 8) }]);
    for (const token of [sealAddressIn(temporary, other), query.address.slice(0, -1), 'k1.']) {
      expect(() => openTemporaryAddress(token, keys)).toThrow(
        expect.objectContaining({
          code: 'invalid_address_in',
          statusCode: 400,
          param: 'address',
          message:
            'address is not an address_in issued by this gateway (altered, truncated or from another instance); call Create Wallet again ' +
            'and send its address_in unchanged',
        }),
      );
    }
  });
});
