import { buildPaymentLink } from '../src';

const input = {
  addressIn: 'k1.AbC-_xyz',
  amount: '49.90',
  provider: 'sandbox',
  email: 'jo+shop@example.com',
  currency: 'USD',
};

describe('buildPaymentLink', () => {
  it('puts the five parameters on /process-payment.php, encoded', () => {
    const link = buildPaymentLink({ paymentUrl: 'https://pay.example.com', ...input });
    expect(link).toBe(
      'https://pay.example.com/process-payment.php?address=k1.AbC-_xyz&amount=49.90&provider=sandbox' +
        '&email=jo%2Bshop%40example.com&currency=USD',
    );
    expect(Object.fromEntries(new URL(link).searchParams)).toEqual({
      address: input.addressIn,
      amount: input.amount,
      provider: input.provider,
      email: input.email,
      currency: input.currency,
    });
  });

  it('keeps a path prefix and tolerates a trailing slash', () => {
    expect(buildPaymentLink({ paymentUrl: 'https://example.com/gateway/', ...input })).toMatch(
      /^https:\/\/example\.com\/gateway\/process-payment\.php\?address=/,
    );
  });

  it('encodes characters that would break the query', () => {
    const link = buildPaymentLink({ paymentUrl: 'http://127.0.0.1:3200', ...input, email: 'a&b=c d@example.com' });
    expect(new URL(link).searchParams.get('email')).toBe('a&b=c d@example.com');
  });

  it('refuses a payment URL that is not a plain http(s) base', () => {
    expect(() => buildPaymentLink({ paymentUrl: 'ftp://pay.example.com', ...input })).toThrow(TypeError);
    expect(() => buildPaymentLink({ paymentUrl: 'https://pay.example.com/?x=1', ...input })).toThrow(TypeError);
    expect(() => buildPaymentLink({ paymentUrl: 'pay.example.com', ...input })).toThrow();
  });
});
