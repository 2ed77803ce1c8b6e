import { createSealingKeyRing, sealAddressIn } from '../src/address-in-codec';
import { GatewayError } from '../src/errors';
import { parseCheckoutLink, unknownWalletError } from '../src/payment-request';

// The hosted checkout's link as a browser brings it: every parameter read as Process Payment reads
// it, every problem reported at once.
const keys = createSealingKeyRing([{ id: 'k1', key: Buffer.alloc(32, 9) }]);
const temporary = `0x${'cd'.repeat(20)}` as const;
const addressIn = sealAddressIn(temporary, keys);
const link = { address: addressIn, amount: '49.99', email: 'jane@shop.io', currency: 'eur' };

describe('parseCheckoutLink', () => {
  it('reads a whole link, keeping address_in as it came', () => {
    expect(parseCheckoutLink(link, keys)).toEqual({
      link: {
        addressIn,
        temporaryAddress: temporary,
        amount: expect.objectContaining({ text: '49.99' }),
        currency: 'EUR',
        email: 'jane@shop.io',
      },
    });
  });

  it('reports every missing parameter at once, each with how to add it; an empty one is missing', () => {
    expect(parseCheckoutLink({ amount: '' }, keys)).toEqual({
      problems: [
        { param: 'address', message: 'address is missing: add address=<the address_in returned by Create Wallet>, URL-encoded' },
        { param: 'amount', message: 'amount is missing: add amount=<the order total>, e.g. amount=49.99' },
        { param: 'currency', message: 'currency is missing: add currency=<the ISO 4217 code of the order>, e.g. currency=USD' },
        { param: 'email', message: "email is missing: add email=<the customer's e-mail address>, URL-encoded" },
      ],
    });
  });

  it('refuses a repeated parameter and a bad value with the message Process Payment gives', () => {
    expect(parseCheckoutLink({ ...link, email: ['a@shop.io', 'b@shop.io'], amount: '49.999' }, keys)).toEqual({
      problems: [
        { param: 'amount', message: expect.stringMatching(/^amount /) },
        { param: 'email', message: 'email is given more than once; send it once' },
      ],
    });
    const plain = parseCheckoutLink({ ...link, address: temporary }, keys);
    expect(plain).toEqual({ problems: [{ param: 'address', message: expect.stringMatching(/plain 0x wallet address is not accepted/) }] });
  });

  it('lets an error that is not a refusal through', () => {
    const throwing = createSealingKeyRing([{ id: 'k1', key: Buffer.alloc(32, 9) }]);
    Object.defineProperty(throwing, 'byId', {
      get() {
        throw new RangeError('the key ring broke');
      },
    });
    expect(() => parseCheckoutLink(link, throwing)).toThrow(RangeError);
  });
});

it('unknownWalletError: a 400 naming address, telling to create the wallet again', () => {
  const error = unknownWalletError();
  expect(error).toBeInstanceOf(GatewayError);
  expect(error.toBody()).toEqual({
    status: 'error',
    code: 'unknown_wallet',
    error: 'address opens, but no wallet of this gateway has it; call Create Wallet again',
    param: 'address',
  });
  expect(error.statusCode).toBe(400);
});
