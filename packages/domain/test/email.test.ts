import { maskEmail, parseEmail } from '../src/email';

describe('email', () => {
  it('accepts ordinary addresses', () => {
    expect(parseEmail('jane.doe+shop@mail.example.co.uk')).toBe('jane.doe+shop@mail.example.co.uk');
  });
  it.each(['', 'jane', 'jane@', '@x.io', 'jane@localhost', 'a b@x.io', `${'a'.repeat(250)}@x.io`, 'jane@x..io'])(
    'refuses %p',
    (input) => expect(() => parseEmail(input)).toThrow(/e-mail/),
  );
  it('masks for logs', () => {
    expect(maskEmail('jane@x.io')).toBe('j***@x.io');
  });
});
