import { invalidParameter } from './errors';
import { findGatewayParamIn, GATEWAY_CALLBACK_PARAMS } from './callback-params';

export const MAX_CALLBACK_URL_LENGTH = 2048;

// RFC 2606 / RFC 6761 names that can never be a merchant's real endpoint.
const PLACEHOLDER_SUFFIXES = ['.test', '.example', '.invalid', '.localhost', '.local'];
const PLACEHOLDER_HOSTS = ['localhost', 'example.com', 'example.net', 'example.org'];

export interface CallbackUrlRules {
  /** Production refuses placeholder and test domains (spec 4.1); the local stack allows them. */
  readonly allowTestDomains: boolean;
}

/**
 * Validates the merchant's callback URL. The string is kept exactly as given: two callbacks
 * that differ in any byte are two different wallets, and the merchant gets back what it sent.
 */
export function parseCallbackUrl(input: string, rules: CallbackUrlRules, param = 'callback'): string {
  if (input.length > MAX_CALLBACK_URL_LENGTH) {
    throw invalidParameter(param, `${param} is longer than ${MAX_CALLBACK_URL_LENGTH} characters; shorten its parameters`);
  }
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw invalidParameter(
      param,
      `${param} must be an absolute http(s) URL, percent-encoded as a query value, e.g. https://shop.example/ipn?order=123`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw invalidParameter(param, `${param} must use http or https, not ${url.protocol.replace(':', '')}`);
  }
  if (url.username || url.password) {
    throw invalidParameter(param, `${param} must not carry a user name or password; put a secret token in a query parameter instead`);
  }
  if (!rules.allowTestDomains && isPlaceholderHost(url.hostname)) {
    throw invalidParameter(param, `${param} points at a placeholder or test domain (${url.hostname}); use the shop's real callback URL`);
  }
  const clash = findGatewayParamIn(input);
  if (clash) {
    throw invalidParameter(
      param,
      `${param} already has a parameter named "${clash}", which the gateway adds itself; rename it (reserved: ${GATEWAY_CALLBACK_PARAMS.join(', ')})`,
    );
  }
  return input;
}

function isPlaceholderHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return (
    PLACEHOLDER_HOSTS.includes(host) ||
    PLACEHOLDER_HOSTS.some((name) => host.endsWith(`.${name}`)) ||
    PLACEHOLDER_SUFFIXES.some((suffix) => host.endsWith(suffix))
  );
}
