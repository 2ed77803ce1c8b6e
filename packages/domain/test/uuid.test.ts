import { randomUUID } from 'node:crypto';
import { isUuid } from '../src/uuid';

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
