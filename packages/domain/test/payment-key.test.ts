import {
  cookieValues,
  issuePaymentKey,
  matchingPaymentKey,
  paymentKeyHash,
  paymentKeyMatches,
  secondChanceFormToken,
  secondChanceFormTokenMatches,
  PAYMENT_KEY_COOKIE,
  PAYMENT_KEY_COOKIE_MAX_AGE_SECONDS,
} from '../src/payment-key';
import {
  crossSiteRequestError,
  DEFAULT_ORDER_ATTEMPTS_MAX,
  DEFAULT_SECOND_CHANCES_MAX,
  orderAttemptsExhaustedError,
  paymentKeyRequiredError,
  postOrigin,
  secondChanceLeft,
} from '../src/payment-limits';

const PAYMENT = '6f1c2b9e-4d3a-4e8b-9a7c-2f5d8e1b3c40';

describe('the payment key', () => {
  it('is 32 random bytes in base64url, stored as its SHA-256, a new one each time', () => {
    const issued = issuePaymentKey();
    expect(issued.key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(issued.key, 'base64url')).toHaveLength(32);
    expect(issued.hash).toEqual(paymentKeyHash(issued.key));
    expect(issued.hash).toHaveLength(32);
    expect(issuePaymentKey().key).not.toBe(issued.key);
  });

  it('matches only the key itself, among any others presented; nothing matches a payment without a hash', () => {
    const { key, hash } = issuePaymentKey();
    const other = issuePaymentKey().key;
    expect(paymentKeyMatches([key], hash)).toBe(true);
    expect(paymentKeyMatches([other, key], hash)).toBe(true);
    expect(matchingPaymentKey([other, key], hash)).toBe(key);
    expect(paymentKeyMatches([other], hash)).toBe(false);
    expect(paymentKeyMatches([], hash)).toBe(false);
    expect(paymentKeyMatches([key], null)).toBe(false);
    // Not the hash, not a cut or padded key, nothing of another shape.
    for (const wrong of [hash.toString('base64url'), key.slice(0, 42), `${key}=`, ` ${key}`, '']) {
      expect(paymentKeyMatches([wrong], hash)).toBe(false);
    }
  });

  it("the second chance's form token: derived from the key and the payment, accepted only beside that key", () => {
    const { key, hash } = issuePaymentKey();
    const token = secondChanceFormToken(key, PAYMENT);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(token).not.toContain(key);
    expect(secondChanceFormTokenMatches(token, [key], hash, PAYMENT)).toBe(true);
    // Another payment's token, the token without the key, or another key's token.
    expect(secondChanceFormTokenMatches(secondChanceFormToken(key, 'another'), [key], hash, PAYMENT)).toBe(false);
    expect(secondChanceFormTokenMatches(token, [], hash, PAYMENT)).toBe(false);
    const stranger = issuePaymentKey().key;
    expect(secondChanceFormTokenMatches(secondChanceFormToken(stranger, PAYMENT), [stranger], hash, PAYMENT)).toBe(false);
    expect(secondChanceFormTokenMatches('', [key], hash, PAYMENT)).toBe(false);
    expect(secondChanceFormTokenMatches(token.slice(1), [key], hash, PAYMENT)).toBe(false);
  });

  it('reads every value of the cookie from a Cookie header, and nothing of other cookies', () => {
    expect(cookieValues('payment_key=a; other=b; payment_key=c', 'payment_key')).toEqual(['a', 'c']);
    expect(cookieValues('xpayment_key=a;payment_key = b', 'payment_key')).toEqual(['b']);
    expect(cookieValues('payment_key', 'payment_key')).toEqual([]);
    // A pair without '=' is no cookie of that name, even when dropping its last character would make one.
    expect(cookieValues('payment_keyX', 'payment_key')).toEqual([]);
    expect(cookieValues(undefined, 'payment_key')).toEqual([]);
  });
});

describe('where a POST comes from', () => {
  const own = 'https://pay.shop.test';
  it.each([
    [{}, 'unknown'],
    [{ origin: 'null' }, 'unknown'],
    [{ origin: 'null', secFetchSite: 'same-origin' }, 'same_origin'],
    [{ origin: 'null', secFetchSite: 'cross-site' }, 'cross_site'],
    [{ origin: own }, 'same_origin'],
    [{ origin: 'HTTPS://PAY.SHOP.TEST' }, 'same_origin'],
    [{ secFetchSite: 'same-origin' }, 'same_origin'],
    [{ origin: own, secFetchSite: 'same-origin' }, 'same_origin'],
    [{ origin: 'https://evil.example' }, 'cross_site'],
    [{ origin: 'http://pay.shop.test' }, 'cross_site'],
    [{ origin: 'https://pay.shop.test:8443' }, 'cross_site'],
    [{ secFetchSite: 'same-site' }, 'cross_site'],
    [{ secFetchSite: 'cross-site' }, 'cross_site'],
    [{ secFetchSite: 'none' }, 'cross_site'],
    [{ origin: own, secFetchSite: 'cross-site' }, 'cross_site'],
    [{ origin: 'https://evil.example', secFetchSite: 'same-origin' }, 'cross_site'],
  ] as const)('%j → %s', (headers, verdict) => {
    expect(postOrigin(headers, own)).toBe(verdict);
  });
});

describe('second chances per payment', () => {
  it('are given while fewer than the most were taken', () => {
    expect([0, 4, 5, 6].map((taken) => secondChanceLeft(taken, DEFAULT_SECOND_CHANCES_MAX))).toEqual([true, true, false, false]);
    expect(secondChanceLeft(0, 0)).toBe(false);
  });
});

describe('the refusals', () => {
  it('say what to do, with their codes and statuses', () => {
    expect(orderAttemptsExhaustedError(DEFAULT_ORDER_ATTEMPTS_MAX).toBody()).toEqual({
      status: 'error',
      code: 'order_attempts_exhausted',
      error:
        'this order has had its 20 payment attempts, the most one order may have; to pay, go back to the shop for a new payment ' +
        'link (a new order)',
      param: 'address',
    });
    expect(orderAttemptsExhaustedError(20).statusCode).toBe(409);
    expect(paymentKeyRequiredError()).toMatchObject({
      statusCode: 403,
      code: 'payment_key_required',
      message:
        'this payment can be continued only in the browser it was started in (or with the checkout_link Process Payment ' +
        'returned); open the payment link the shop gave you',
    });
    expect(crossSiteRequestError()).toMatchObject({
      statusCode: 403,
      code: 'cross_site_request',
      message: "this form is accepted only from this gateway's own receipt page; open your receipt and choose again",
    });
  });
});

describe('the cookie and the key', () => {
  it('is the payment_key cookie, kept a week: the provider’s return and a second chance come within days', () => {
    expect(PAYMENT_KEY_COOKIE).toBe('payment_key');
    expect(PAYMENT_KEY_COOKIE_MAX_AGE_SECONDS).toBe(604_800);
  });

  it('matches a key of exactly its shape only: a longer string holding the key, or one with a prefix, is no key', () => {
    const { key, hash } = issuePaymentKey();
    expect(paymentKeyMatches([key], hash)).toBe(true);
    expect(paymentKeyMatches([`${key}A`], paymentKeyHash(`${key}A`))).toBe(false);
    expect(paymentKeyMatches([`!${key.slice(1)}`], paymentKeyHash(`!${key.slice(1)}`))).toBe(false);
    expect(paymentKeyMatches([`${key.slice(0, 42)}!`], paymentKeyHash(`${key.slice(0, 42)}!`))).toBe(false);
  });
});

describe('several keys act on one payment (its own, a recovery e-mail link)', () => {
  it("matches a key whose hash is any of the payment's, and derives the form token from the one presented", () => {
    const own = issuePaymentKey();
    const link = issuePaymentKey();
    const hashes = [own.hash, link.hash];
    expect(paymentKeyMatches([link.key], hashes)).toBe(true);
    expect(paymentKeyMatches([own.key], hashes)).toBe(true);
    expect(paymentKeyMatches([issuePaymentKey().key], hashes)).toBe(false);
    expect(paymentKeyMatches([link.key], [])).toBe(false);
    expect(matchingPaymentKey(['junk', link.key], hashes)).toBe(link.key);
    const id = '0f8fad5b-d9cb-469f-a165-70867728950e';
    expect(secondChanceFormTokenMatches(secondChanceFormToken(link.key, id), [link.key], hashes, id)).toBe(true);
  });
});
