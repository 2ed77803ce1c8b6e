import { PROVIDER_REPORT_LIMITS, providerIdentifier, providerText } from '../src';

describe('providerIdentifier: an id a provider sent, or nothing', () => {
  it('keeps a plain id as it is, cut to the column size (as it was recorded)', () => {
    expect(providerIdentifier('mp_123')).toBe('mp_123');
    expect(providerIdentifier('r'.repeat(500))).toBe('r'.repeat(PROVIDER_REPORT_LIMITS.identifier));
    expect(providerIdentifier('abcdef', 3)).toBe('abc');
    expect(providerIdentifier('abc', 3)).toBe('abc');
  });

  it.each([
    ['a NUL', 'mp_\u0000'],
    ['a NUL first', '\u0000mp'],
    ['a tab', 'mp\t1'],
    ['DEL', 'mp\u007f'],
    ['a C1 control', 'mp\u0085'],
    ['the last C1 control', 'mp\u009f'],
    ['the last C0 control', 'mp\u001f'],
    ['empty', ''],
  ])('names nothing with %s', (_what, value) => {
    expect(providerIdentifier(value)).toBeUndefined();
  });

  it('keeps the characters just outside the control ranges', () => {
    expect(providerIdentifier(' mp~\u00a0é')).toBe(' mp~\u00a0é');
  });

  it.each([null, undefined, 42, true, {}, ['mp_1']])('names nothing with %p (not a string)', (value) => {
    expect(providerIdentifier(value)).toBeUndefined();
  });

  it('never ends in half of a surrogate pair, and a control past the cut does not count', () => {
    expect(providerIdentifier('ab😀', 3)).toBe('ab');
    expect(providerIdentifier('a😀', 3)).toBe('a😀');
    expect(providerIdentifier('abc\u0000', 3)).toBe('abc');
  });

  it('cuts a pair at the edges of the high-surrogate range, and keeps what fits as it is', () => {
    // U+10000 and U+10FFFF: their high halves are the first and last of the range.
    expect(providerIdentifier('ab\ud800\udc00', 3)).toBe('ab');
    expect(providerIdentifier('ab\udbff\udfff', 3)).toBe('ab');
    expect(providerIdentifier('abcdef', 3)).toBe('abc');
    // Just past the high-surrogate range: a low surrogate, or a character above the surrogates, ends the cut as it is.
    expect(providerIdentifier('ab\udc00d', 3)).toBe('ab\udc00');
    expect(providerIdentifier('ab\uff71d', 3)).toBe('ab\uff71');
    // Exactly the size: nothing is cut, whatever it ends with.
    expect(providerIdentifier('ab\ud83d', 3)).toBe('ab\ud83d');
    expect(providerIdentifier('abc', 3)).toBe('abc');
  });
});

describe('providerText: free text a provider sent, made printable', () => {
  it('turns each run of control characters and the spaces around it into one space, and trims', () => {
    expect(providerText('Card\u0000 declined\u0007 by\u001b[31m the bank', 200)).toBe('Card declined by [31m the bank');
    expect(providerText('\u0000\n  Declined \t\r\n', 200)).toBe('Declined');
    expect(providerText('a \u0085\u009f  b', 200)).toBe('a b');
    expect(providerText('a  b', 200)).toBe('a  b');
  });

  it('cuts to its size without leaving a space or half a surrogate pair at the end', () => {
    expect(providerText('w'.repeat(1_000_000), 200)).toBe('w'.repeat(200));
    expect(providerText('abc def', 4)).toBe('abc');
    expect(providerText('ab😀', 3)).toBe('ab');
    expect(providerText('abc', 3)).toBe('abc');
  });

  it('scans only the start of a huge string: what lies past four times its size is never read', () => {
    expect(providerText(`${'\u0000'.repeat(400)}tail`, 100)).toBeUndefined();
    expect(providerText(`${'\u0000'.repeat(399)}tail`, 100)).toBe('t');
  });

  it.each([null, undefined, 7, {}, [], '', '\u0000\u0001', '   '])('is undefined for %p', (value) => {
    expect(providerText(value, 100)).toBeUndefined();
  });
});
