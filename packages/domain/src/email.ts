import { invalidParameter } from './errors';

// The WHATWG HTML "valid e-mail address" rule: what browsers accept in <input type=email>.
const EMAIL = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/;
const MAX_EMAIL_LENGTH = 254;

export function parseEmail(input: string, param = 'email'): string {
  const email = input.trim();
  if (email.length > MAX_EMAIL_LENGTH || !EMAIL.test(email)) {
    throw invalidParameter(param, `${param} must be the customer's e-mail address, e.g. jane@example.com`);
  }
  return email;
}

/** For logs: enough to recognise an address, not enough to harvest it ("j***@example.com"). */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 1) return '***';
  return `${email[0]}***${email.slice(at)}`;
}
