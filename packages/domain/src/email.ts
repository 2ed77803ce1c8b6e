import { invalidParameter } from './errors';

// The WHATWG HTML "valid e-mail address" rule: what browsers accept in <input type=email>.
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/;
const MAX_EMAIL_LENGTH = 254;

/**
 * The customer's e-mail address, exactly as sent: nothing is trimmed (a line feed or a no-break
 * space around it is refused like one inside it), so what is stored and passed to the provider is
 * what the merchant sent. ASCII only, as the pattern says.
 */
export function parseEmail(input: string, param = 'email'): string {
  if (input.length > MAX_EMAIL_LENGTH || !EMAIL.test(input)) {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
    const spaced = /[\s\u0000-\u001f\u007f-\u009f]/.test(input);
    throw invalidParameter(
      param,
      spaced
        ? `${param} must be the customer's e-mail address without spaces or control characters, e.g. jane@example.com`
        : `${param} must be the customer's e-mail address, e.g. jane@example.com`,
    );
  }
  return input;
}

/** For logs: enough to recognise an address, not enough to harvest it ("j***@example.com"). */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 1) return '***';
  return `${email[0]}***${email.slice(at)}`;
}
