import { randomUUID } from 'node:crypto';
import { isDepositId, isHexAddress, isTxHash, isUuid } from '../src/identifiers';

describe('isUuid', () => {
  it('takes a UUID in either case', () => {
    const id = randomUUID();
    expect(isUuid(id)).toBe(true);
    expect(isUuid(id.toUpperCase())).toBe(true);
    expect(isUuid('00000000-0000-0000-0000-000000000000')).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['without hyphens', '0123456789abcdef0123456789abcdef'],
    ['in braces', '{01234567-89ab-cdef-0123-456789abcdef}'],
    ['a group short', '01234567-89ab-cdef-0123-456789abcde'],
    ['a group long', '01234567-89ab-cdef-0123-456789abcdef0'],
    ['hyphens moved', '0123456-789ab-cdef-0123-456789abcdef'],
    ['not hex', '01234567-89ab-cdef-0123-456789abcdeg'],
    ['with a line after it', '01234567-89ab-cdef-0123-456789abcdef\n'],
    ['with text before it', 'x01234567-89ab-cdef-0123-456789abcdef'],
  ])('refuses one %s', (_case, value) => {
    expect(isUuid(value)).toBe(false);
  });
});

describe('isDepositId', () => {
  // A bigserial: positive, no leading zero, at most PostgreSQL's bigint (19 digits).
  const answers: Record<string, boolean> = {
    '1': true,
    '42': true,
    '9223372036854775807': true,
    '': false,
    '0': false,
    '012': false,
    '-1': false,
    '12345678901234567890': false,
    '1.5': false,
    '12\n': false,
  };

  it('takes a positive whole number of at most 19 digits, and nothing else', () => {
    expect(Object.fromEntries(Object.keys(answers).map((value) => [value, isDepositId(value)]))).toEqual(answers);
  });
});

describe('isHexAddress and isTxHash', () => {
  const address = `0x${'aB'.repeat(20)}`;
  const hash = `0x${'cD'.repeat(32)}`;

  it('take either case, without a checksum', () => {
    expect([
      isHexAddress(address),
      isHexAddress(address.toLowerCase()),
      isTxHash(hash),
      isTxHash(hash.toUpperCase().replace('0X', '0x')),
    ]).toEqual([true, true, true, true]);
  });

  it.each([
    ['one digit short', (value: string) => value.slice(0, -1)],
    ['one digit long', (value: string) => `${value}0`],
    ['without 0x', (value: string) => value.slice(2)],
    ['not hex', (value: string) => `${value.slice(0, -1)}g`],
    ['with a line after it', (value: string) => `${value}\n`],
  ])('refuse one %s', (_case, change) => {
    expect([isHexAddress(change(address)), isTxHash(change(hash))]).toEqual([false, false]);
  });

  it('tell an address from a hash', () => {
    expect([isHexAddress(hash), isTxHash(address)]).toEqual([false, false]);
  });
});
