import {
  formatUsdcFixed,
  GatewayError,
  LEDGER_MAX_RANGE_DAYS,
  orderExpectedShares,
  parseHexAddress,
  parseLedgerQuery,
  parseLedgerTime,
  splitWalletDeposit,
  unknownLedgerPayoutAddress,
} from '../src';

const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const valid = { payout_address: ADDRESS, from: '2026-11-01', to: '2026-12-01' };

/** The error parseLedgerQuery throws for `input`, as the wire carries it. */
function refusal(input: Parameters<typeof parseLedgerQuery>[0]) {
  try {
    parseLedgerQuery(input);
  } catch (error) {
    if (error instanceof GatewayError) return { code: error.code, param: error.param, message: error.message };
    throw error;
  }
  throw new Error('accepted');
}

describe('a ledger query', () => {
  it('covers the orders of a payout address created from the first day (midnight UTC, included) to the last (excluded)', () => {
    expect(parseLedgerQuery(valid)).toEqual({
      payoutAddress: ADDRESS.toLowerCase(),
      from: new Date('2026-11-01T00:00:00Z'),
      to: new Date('2026-12-01T00:00:00Z'),
      format: 'csv',
    });
    expect(parseLedgerQuery({ ...valid, payout_address: ADDRESS.toLowerCase(), format: 'json' }).format).toBe('json');
  });

  it('takes ISO 8601 times with their offset, to the microsecond', () => {
    expect(parseLedgerTime('2026-11-01T00:00:00+01:00', 'from')).toEqual(new Date('2026-10-31T23:00:00Z'));
    expect(parseLedgerTime('2026-11-01T10:30Z', 'from')).toEqual(new Date('2026-11-01T10:30:00Z'));
    expect(parseLedgerTime('2026-11-01T10:30:05.123456Z', 'from')).toEqual(new Date('2026-11-01T10:30:05.123Z'));
  });

  it.each([
    ['a missing payout address', { ...valid, payout_address: undefined }, 'missing_parameter', 'payout_address'],
    ['a malformed address', { ...valid, payout_address: '0x1234' }, 'invalid_parameter', 'payout_address'],
    ['a wrong checksum', { ...valid, payout_address: ADDRESS.replace('E7', 'e7') }, 'invalid_parameter', 'payout_address'],
    ['a missing from', { ...valid, from: undefined }, 'missing_parameter', 'from'],
    ['an empty to', { ...valid, to: '' }, 'missing_parameter', 'to'],
    ['a day that does not exist', { ...valid, from: '2026-02-30' }, 'invalid_parameter', 'from'],
    ['a time without its offset', { ...valid, from: '2026-11-01T00:00:00' }, 'invalid_parameter', 'from'],
    ['a time that does not exist', { ...valid, to: '2026-12-01T24:30:00Z' }, 'invalid_parameter', 'to'],
    ['a day in another spelling', { ...valid, to: '01/12/2026' }, 'invalid_parameter', 'to'],
    ['from after to', { ...valid, from: '2026-12-02' }, 'invalid_parameter', 'to'],
    ['from equal to to', { ...valid, to: '2026-11-01' }, 'invalid_parameter', 'to'],
    ['a range over a year', { ...valid, from: '2026-01-01', to: '2027-01-03' }, 'invalid_parameter', 'to'],
    ['another format', { ...valid, format: 'xlsx' }, 'invalid_parameter', 'format'],
  ])('refuses %s, naming the parameter', (_what, input, code, param) => {
    expect(refusal(input)).toMatchObject({ code, param });
  });

  it(`takes a whole leap year (${LEDGER_MAX_RANGE_DAYS} days), not a day more`, () => {
    expect(parseLedgerQuery({ ...valid, from: '2028-01-01', to: '2029-01-01' }).to).toEqual(new Date('2029-01-01T00:00:00Z'));
    expect(refusal({ ...valid, from: '2028-01-01', to: '2029-01-01T00:00:01Z' }).message).toMatch(/longer than 366 days/);
  });

  it('says how to fix what it refuses', () => {
    expect(refusal({ ...valid, from: '2026-12-02' }).message).toBe(
      'to must be after from: the ledger covers orders created from "from" (included) up to "to" (excluded), e.g. from=2026-11-01&to=2026-12-01',
    );
    expect(unknownLedgerPayoutAddress('0xabc')).toMatchObject({ code: 'not_found', param: 'payout_address', statusCode: 404 });
  });
});

describe('parseHexAddress', () => {
  it('gives the checksummed address of a lower-case, upper-case or rightly checksummed one', () => {
    for (const input of [ADDRESS, ADDRESS.toLowerCase(), `0x${ADDRESS.slice(2).toUpperCase()}`]) {
      expect(parseHexAddress(input, 'a')).toBe(ADDRESS);
    }
  });
});

describe("an order's expected shares", () => {
  it("divide the expectation as settlement divides a deposit of that amount, by the wallet's recorded terms", () => {
    const terms = { platformFeeBps: 100, affiliateFeeBps: 50 };
    const split = splitWalletDeposit(25_000_001n, terms);
    expect(orderExpectedShares(25_000_001n, terms)).toEqual({
      merchant: split.merchant,
      platform: split.platformFee,
      affiliate: split.affiliateFee,
    });
    expect(orderExpectedShares(25_000_001n, terms)).toEqual({ merchant: 24_625_001n, platform: 250_000n, affiliate: 125_000n });
  });

  it('are nothing for an expectation of nothing', () => {
    expect(orderExpectedShares(0n, { platformFeeBps: 100, affiliateFeeBps: null })).toEqual({ merchant: 0n, platform: 0n, affiliate: 0n });
  });
});

describe('formatUsdcFixed', () => {
  it.each([
    [0n, '0.000000'],
    [1n, '0.000001'],
    [24_255_000n, '24.255000'],
    [10n ** 18n, '1000000000000.000000'],
  ])('writes %s base units as %s', (units, text) => {
    expect(formatUsdcFixed(units)).toBe(text);
  });
});
