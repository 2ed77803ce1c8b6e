import { maskEmail } from '@gateway/domain';

/**
 * Request URLs carry customer e-mails, merchant callback URLs (which often hold the shop's own
 * secret tokens), ipn_tokens (which read a payment's status) and payment keys (which act on a
 * payment: the customer's checkout link). Logs keep the e-mail's domain, the callback's origin and
 * the token's first characters (enough to find a payment with support), and nothing of a key.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  let changed = false;
  for (const [name, value] of params) {
    if (name === 'email') {
      params.set(name, maskEmail(value));
      changed = true;
    } else if (name === 'callback') {
      params.set(name, callbackOrigin(value));
      changed = true;
    } else if (name === 'key') {
      params.set(name, '…');
      changed = true;
    } else if (name === 'ipn_token') {
      params.set(name, maskIpnToken(value));
      changed = true;
    }
  }
  return changed ? `${url.slice(0, q)}?${params.toString()}` : url;
}

function callbackOrigin(value: string): string {
  try {
    return `${new URL(value).origin}/…`;
  } catch {
    return '…';
  }
}

/** The first characters of an ipn_token: they find the wallet in the database, they do not open it. */
export function maskIpnToken(token: string): string {
  return `${token.slice(0, 6)}…`;
}
