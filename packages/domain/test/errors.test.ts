import { ERROR_CODES, GatewayError, invalidParameter } from '../src/errors';

describe('GatewayError', () => {
  it('carries the status of its code and names itself in stack traces', () => {
    const error = new GatewayError('unknown_wallet', 'address is not a wallet of this gateway', 'address');
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      name: 'GatewayError',
      code: 'unknown_wallet',
      statusCode: 400,
      param: 'address',
      message: 'address is not a wallet of this gateway',
    });
    expect(String(error)).toBe('GatewayError: address is not a wallet of this gateway');
    expect(new GatewayError('rate_limited', 'slow down').statusCode).toBe(ERROR_CODES.rate_limited);
  });

  it('sends the wire shape, with param only when there is one', () => {
    expect(invalidParameter('amount', 'amount must be a number').toBody()).toEqual({
      status: 'error',
      code: 'invalid_parameter',
      error: 'amount must be a number',
      param: 'amount',
    });
    expect(new GatewayError('internal_error', 'something broke').toBody()).toEqual({
      status: 'error',
      code: 'internal_error',
      error: 'something broke',
    });
  });

  it('rounds Retry-After up to whole seconds, at least one', () => {
    const retryAfter = (seconds: number) =>
      new GatewayError('service_unavailable', 'busy', undefined, { retryAfterSeconds: seconds }).retryAfterSeconds;
    expect([0, 0.2, 1, 2.1, 30].map(retryAfter)).toEqual([1, 1, 1, 3, 30]);
    expect(new GatewayError('service_unavailable', 'busy').retryAfterSeconds).toBeUndefined();
  });
});
