import { maskEmail } from '@gateway/domain';

/**
 * Request URLs carry customer e-mails and merchant callback URLs (which often hold the shop's
 * own secret tokens). Logs keep the e-mail's domain and the callback's origin only.
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
