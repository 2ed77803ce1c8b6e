import {
  asSentence,
  attemptThatPaid,
  deliveryTxHash,
  providerOptions,
  secondChanceOpen,
  secondChanceProviders,
  type FiatAmount,
  type ProviderTerms,
} from '../src';

describe('secondChanceOpen', () => {
  it('opens when the provider declined or failed the payment and no USDC arrived', () => {
    expect(secondChanceOpen('declined', false)).toBe(true);
    expect(secondChanceOpen('failed', false)).toBe(true);
  });

  it('stays shut while the provider has said nothing, is working, or paid, and once USDC arrived', () => {
    expect(secondChanceOpen(null, false)).toBe(false);
    expect(secondChanceOpen('pending', false)).toBe(false);
    expect(secondChanceOpen('charged', false)).toBe(false);
    expect(secondChanceOpen('paid', false)).toBe(false);
    expect(secondChanceOpen('declined', true)).toBe(false);
    expect(secondChanceOpen('failed', true)).toBe(false);
  });

  it('throws naming the status rather than guessing (a new provider status needs its rule first)', () => {
    expect(() => secondChanceOpen('refunded' as never, false)).toThrow('provider status refunded has no second-chance rule');
  });
});

describe('secondChanceProviders', () => {
  const terms = (id: string, currency: ProviderTerms['currency'], minimum: string): ProviderTerms => ({
    id,
    displayName: id.toUpperCase(),
    currency,
    minimum,
    minimumCurrency: currency === 'any' ? 'USD' : currency,
    fees: { minBps: 300, maxBps: 500 },
  });
  const amount = (text: string): FiatAmount => ({ text, minorUnits: BigInt(text.replace('.', '')) });

  it('offers the providers that accept the order, not the one that gave up, with the charge the hosted checkout shows', () => {
    const offered = [terms('moonpay', 'any', '20'), terms('banxa', 'any', '20'), terms('big', 'any', '500'), terms('interac', 'CAD', '1')];
    const options = providerOptions(amount('49.99'), 'USD', new Map(), offered);
    const chosen = secondChanceProviders(options, 'moonpay');
    expect(chosen.map((option) => option.provider.id)).toEqual(['banxa']);
    expect(chosen[0]?.charge).toEqual({ amount: amount('49.99'), currency: 'USD' });
  });
});

describe('asSentence', () => {
  it('adds a full stop only when the reason has no closing mark', () => {
    expect(asSentence('Card declined by issuer')).toBe('Card declined by issuer.');
    expect(asSentence('Your card was declined.')).toBe('Your card was declined.');
    expect(asSentence('Insufficient funds!')).toBe('Insufficient funds!');
    expect(asSentence('  the order expired before payment ')).toBe('The order expired before payment.');
    expect(asSentence('Declined ("do not honour")')).toBe('Declined ("do not honour").');
    expect(asSentence('   ')).toBe('');
  });
});

describe('attemptThatPaid', () => {
  const at = (iso: string) => new Date(`2026-11-27T${iso}Z`);
  const tx = (digit: string) => `0x${digit.repeat(64)}`;
  const attempts = [
    { id: 'moonpay-attempt', createdAt: at('10:00:00'), deliveredTxHash: null },
    { id: 'banxa-attempt', createdAt: at('10:05:00'), deliveredTxHash: null },
  ];

  it('credits the latest attempt created before the deposit was seen', () => {
    expect(attemptThatPaid({ txHash: tx('a'), seenAt: at('10:07:00') }, attempts)).toBe('banxa-attempt');
    expect(attemptThatPaid({ txHash: tx('a'), seenAt: at('10:03:00') }, attempts)).toBe('moonpay-attempt');
    expect(attemptThatPaid({ txHash: tx('a'), seenAt: at('10:05:00') }, attempts)).toBe('banxa-attempt');
    expect(attemptThatPaid({ txHash: tx('a'), seenAt: at('10:07:00') }, [...attempts].reverse())).toBe('banxa-attempt');
  });

  it('credits the attempt whose provider reported the transaction, even an earlier one', () => {
    const reported = [{ ...attempts[0]!, deliveredTxHash: tx('a') }, attempts[1]!];
    expect(attemptThatPaid({ txHash: tx('A'), seenAt: at('10:07:00') }, reported)).toBe('moonpay-attempt');
    // Its provider delivered another transaction: this one goes by time, to the others.
    expect(attemptThatPaid({ txHash: tx('b'), seenAt: at('10:07:00') }, reported)).toBe('banxa-attempt');
    expect(attemptThatPaid({ txHash: tx('b'), seenAt: at('10:03:00') }, reported)).toBeNull();
  });

  it('credits the first listed of attempts created in the same millisecond, so every reader of one list credits the same one', () => {
    const twins = [
      { id: 'first-listed', createdAt: at('10:05:00'), deliveredTxHash: null },
      { id: 'second-listed', createdAt: at('10:05:00'), deliveredTxHash: null },
    ];
    expect(attemptThatPaid({ txHash: tx('a'), seenAt: at('10:07:00') }, [attempts[0]!, ...twins])).toBe('first-listed');
  });

  it('credits no attempt with a deposit seen before any of them started', () => {
    expect(attemptThatPaid({ txHash: tx('a'), seenAt: at('09:59:59') }, attempts)).toBeNull();
    expect(attemptThatPaid({ txHash: tx('a'), seenAt: at('10:00:00') }, [])).toBeNull();
  });
});

describe('deliveryTxHash', () => {
  it('keeps a transaction hash, lower-cased, and ignores anything else', () => {
    expect(deliveryTxHash(` 0x${'AB'.repeat(32)} `)).toBe(`0x${'ab'.repeat(32)}`);
    for (const value of [undefined, null, 42, '', '0x1234', `0x${'g'.repeat(64)}`, `${'a'.repeat(64)}`, `0x${'a'.repeat(65)}`]) {
      expect(deliveryTxHash(value)).toBeUndefined();
    }
    // A hash inside other text is not one.
    expect(deliveryTxHash(`tx0x${'a'.repeat(64)}`)).toBeUndefined();
  });
});
