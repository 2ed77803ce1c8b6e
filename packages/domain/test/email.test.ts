import { maskEmail, parseEmail } from '../src/email';

describe('email', () => {
  it('accepts ordinary addresses', () => {
    expect(parseEmail('jane.doe+shop@mail.example.co.uk')).toBe('jane.doe+shop@mail.example.co.uk');
  });
  it.each(['', 'jane', 'jane@', '@x.io', 'jane@localhost', 'a b@x.io', `${'a'.repeat(250)}@x.io`, 'jane@x..io'])('refuses %p', (input) =>
    expect(() => parseEmail(input)).toThrow(/e-mail/),
  );
  it.each([
    ['a trailing line feed', 'jane@shop.io\n'],
    ['a leading space', ' jane@shop.io'],
    ['a trailing tab', 'jane@shop.io\t'],
    ['a NUL', 'jane@shop.io\u0000'],
    ['a no-break space', '\u00a0jane@shop.io'],
    ['a byte order mark', '\ufeffjane@shop.io'],
    ['a non-ASCII letter', 'j\u00e4ne@shop.io'],
  ])('refuses %s instead of trimming it away', (_name, input) => {
    expect(() => parseEmail(input)).toThrow(/e-mail/);
  });
  it('masks for logs', () => {
    expect(maskEmail('jane@x.io')).toBe('j***@x.io');
  });
});
