import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CODES, ERROR_GUIDE, errorGuideMarkdown, type ErrorCode } from '../src';

describe('the error-code reference (docs/errors.md)', () => {
  it('is the page written from the guide: every code, its status, what it means and what to do', () => {
    const page = readFileSync(join(__dirname, '../../../docs/errors.md'), 'utf8');
    // Out of date: run `pnpm docs:errors` and commit docs/errors.md.
    expect(page).toBe(errorGuideMarkdown());
    for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
      expect(page).toContain(`| \`${code}\` | ${ERROR_CODES[code]} |`);
      expect(ERROR_GUIDE[code].meaning.trim()).not.toBe('');
      expect(ERROR_GUIDE[code].action.trim()).not.toBe('');
    }
  });

  it('documents no code the gateway does not have', () => {
    expect(Object.keys(ERROR_GUIDE).sort()).toEqual(Object.keys(ERROR_CODES).sort());
  });
});
