import { DEFAULT_CHECKOUT_RANKING_WINDOW_DAYS, measureCheckouts, medianOf, parseRankingWindowDays, type MeasurableAttempt } from '../src';

const T0 = Date.parse('2026-11-01T10:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const tx = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const attempt = (id: string, provider: string, minutes: number, extra: Partial<MeasurableAttempt> = {}): MeasurableAttempt => ({
  id,
  provider,
  createdAt: at(minutes),
  deliveredTxHash: null,
  measured: true,
  ...extra,
});

describe('CHECKOUT_RANKING_WINDOW_DAYS', () => {
  it('reads whole days from 1 to 365, default 30', () => {
    expect(DEFAULT_CHECKOUT_RANKING_WINDOW_DAYS).toBe(30);
    expect(parseRankingWindowDays('1')).toBe(1);
    expect(parseRankingWindowDays('365')).toBe(365);
  });

  it.each(['0', '366', '7.5', '', ' 30', '-1', '1000'])('refuses %p naming the setting', (input) => {
    expect(() => parseRankingWindowDays(input)).toThrow(/CHECKOUT_RANKING_WINDOW_DAYS must be a whole number of days from 1 to 365/);
  });
});

describe('medianOf', () => {
  it('takes the middle value, or the mean of the two middle ones', () => {
    expect(medianOf([])).toBeUndefined();
    expect(medianOf([7])).toBe(7);
    expect(medianOf([9, 1, 5])).toBe(5);
    expect(medianOf([4, 1, 10, 2])).toBe(3);
  });
});

describe('measureCheckouts', () => {
  it('counts attempts and those credited a deposit, with the median minutes to the first one (rounded up)', () => {
    const measured = measureCheckouts([
      { attempts: [attempt('a', 'moonpay', 0)], deposits: [{ txHash: tx(1), seenAt: at(4.5) }] },
      // Two deposits: the first one counts for the time.
      {
        attempts: [attempt('b', 'moonpay', 0)],
        deposits: [
          { txHash: tx(3), seenAt: at(20) },
          { txHash: tx(2), seenAt: at(10) },
        ],
      },
      { attempts: [attempt('c', 'moonpay', 0)], deposits: [] },
      { attempts: [attempt('d', 'transak', 0)], deposits: [] },
    ]);
    expect(measured.get('moonpay')).toEqual({ attempts: 3, reachedUsdc: 2, minutesToUsdc: 8 });
    expect(measured.get('transak')).toEqual({ attempts: 1, reachedUsdc: 0 });
    expect(measured.has('banxa')).toBe(false);
  });

  it('credits a deposit as attemptThatPaid does: the reporting attempt, else the latest one before it', () => {
    const measured = measureCheckouts([
      {
        // A declined card at MoonPay, a second chance at Transak: the USDC is Transak's.
        attempts: [attempt('first', 'moonpay', 0), attempt('second', 'transak', 5)],
        deposits: [{ txHash: tx(1), seenAt: at(15) }],
      },
      {
        // MoonPay reported sending the transaction, though a later Transak attempt exists.
        attempts: [attempt('reported', 'moonpay', 0, { deliveredTxHash: tx(2) }), attempt('later', 'transak', 1)],
        deposits: [{ txHash: tx(2), seenAt: at(3) }],
      },
    ]);
    expect(measured.get('moonpay')).toEqual({ attempts: 2, reachedUsdc: 1, minutesToUsdc: 3 });
    expect(measured.get('transak')).toEqual({ attempts: 2, reachedUsdc: 1, minutesToUsdc: 10 });
  });

  it('lets attempts outside the window compete for deposits without counting them', () => {
    const measured = measureCheckouts([
      {
        attempts: [attempt('old', 'moonpay', -100, { measured: false }), attempt('new', 'banxa', 0)],
        // Seen before the new attempt: the old one's, and the new one reached nothing.
        deposits: [{ txHash: tx(1), seenAt: at(-1) }],
      },
    ]);
    expect(measured.get('moonpay')).toBeUndefined();
    expect(measured.get('banxa')).toEqual({ attempts: 1, reachedUsdc: 0 });
  });

  it('never counts a deposit credited to no attempt', () => {
    const measured = measureCheckouts([{ attempts: [attempt('a', 'moonpay', 10)], deposits: [{ txHash: tx(1), seenAt: at(5) }] }]);
    expect(measured.get('moonpay')).toEqual({ attempts: 1, reachedUsdc: 0 });
  });
});
