import { maskEmail, parseEmail } from '../src/email';

describe('email', () => {
  it('accepts ordinary addresses', () => {
    expect(parseEmail('jane.doe+shop@mail.example.co.uk')).toBe('jane.doe+shop@mail.example.co.uk');
  });
  it('accepts one-character labels and the longest address, 254 characters', () => {
    for (const email of ['j@x.io', 'jane@shop.c', 'jane@a.b.c']) expect(parseEmail(email)).toBe(email);
    const longest = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`;
    expect(longest).toHaveLength(254);
    expect(parseEmail(longest)).toBe(longest);
    expect(() => parseEmail(`a${longest}`)).toThrow(/e-mail/);
  });
  it('says what is wrong, naming the parameter: spaces and controls, or the shape', () => {
    expect(() => parseEmail('jane')).toThrow(
      expect.objectContaining({
        code: 'invalid_parameter',
        param: 'email',
        message: "email must be the customer's e-mail address, e.g. jane@example.com",
      }),
    );
    expect(() => parseEmail('jane@shop.io ', 'customer')).toThrow(
      expect.objectContaining({
        param: 'customer',
        message: "customer must be the customer's e-mail address without spaces or control characters, e.g. jane@example.com",
      }),
    );
    expect(() => parseEmail('jane@shop.io\u0085')).toThrow(/without spaces or control characters/);
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
  it('masks for logs, keeping the first character and the domain', () => {
    expect(maskEmail('jane@x.io')).toBe('j***@x.io');
    expect(maskEmail('j@x.io')).toBe('j***@x.io');
    expect(maskEmail('a@b@x.io')).toBe('a***@x.io');
    // Nothing before the @, or no @ at all: nothing to recognise it by.
    expect(maskEmail('@x.io')).toBe('***');
    expect(maskEmail('jane')).toBe('***');
  });
});
