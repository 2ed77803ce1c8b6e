import { parseCommandArgs, UsageError } from '../src/command-kit';

describe("a command's arguments", () => {
  it('takes a value of one dash and more letters as a value, not an option (one ipn_token in 64 starts with "-")', () => {
    expect(parseCommandArgs(['-eX7mZ2qT', '--json'], {})).toEqual({ values: { json: true }, positionals: ['-eX7mZ2qT'] });
    expect(parseCommandArgs(['--', '-eX7mZ2qT'], {})).toEqual({ values: {}, positionals: ['-eX7mZ2qT'] });
  });

  it('still refuses an option it does not know', () => {
    expect(() => parseCommandArgs(['--nope'], {})).toThrow(UsageError);
    expect(() => parseCommandArgs(['-x'], {})).toThrow(UsageError);
  });

  it('reads its options and their values as before', () => {
    expect(parseCommandArgs(['abc', '--limit', '5'], { limit: { type: 'string' } })).toEqual({
      values: { limit: '5' },
      positionals: ['abc'],
    });
  });
});
