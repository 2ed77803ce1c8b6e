import { invalidParameter } from './errors';
import { findGatewayParamIn, GATEWAY_CALLBACK_PARAMS } from './callback-params';
import { createAddressPolicy, LOOPBACK_CIDRS, type AddressPolicy } from './callback-address-policy';

export const MAX_CALLBACK_URL_LENGTH = 2048;

// RFC 2606 / RFC 6761 names that can never be a merchant's real endpoint.
const PLACEHOLDER_SUFFIXES = ['.test', '.example', '.invalid', '.localhost', '.local'];
const PLACEHOLDER_HOSTS = ['localhost', 'example.com', 'example.net', 'example.org'];

export interface CallbackUrlRules {
  /** Production refuses placeholder and test domains (spec 4.1); the local stack allows them. */
  readonly allowTestDomains: boolean;
  /** Production: https only (callbackSchemeRefusal). Outside it http stays allowed (the local stack's demo merchant). */
  readonly requireHttps?: boolean;
  /**
   * The callback-worker's address rule, applied to a host that is an IP literal. Default:
   * `callbackAddressPolicy(allowTestDomains, [])`, public unicast only (loopback too with test domains).
   */
  readonly addressPolicy?: AddressPolicy;
}

// Whitespace (any Unicode White_Space, and the invisible U+180E, U+200B and BOM) and controls (C0, DEL, C1). The WHATWG
// parser drops tabs and line feeds and trims the ends silently, PostgreSQL refuses a NUL: the URL
// is kept byte for byte, so such a character must be refused, never fixed up.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
const CONTROL_OR_WHITESPACE = /[\u0000-\u0020\u007f-\u00a0\u1680\u180e\u2000-\u200b\u2028\u2029\u202f\u205f\u3000\ufeff]/;
const LONE_SURROGATE = /\p{Cs}/u;

const STRICT_POLICY = createAddressPolicy([]);
const LOCAL_POLICY = createAddressPolicy(LOOPBACK_CIDRS);

/**
 * The address rule Create Wallet applies to IP-literal callback hosts: the same as the
 * callback-worker's, exempting `allowedCidrs` (CALLBACK_ALLOWED_CIDRS) and, where test domains are
 * allowed (the local stack only), loopback, as `localhost` is.
 */
export function callbackAddressPolicy(allowTestDomains: boolean, allowedCidrs: readonly string[]): AddressPolicy {
  if (allowedCidrs.length === 0) return allowTestDomains ? LOCAL_POLICY : STRICT_POLICY;
  return createAddressPolicy(allowTestDomains ? [...LOOPBACK_CIDRS, ...allowedCidrs] : allowedCidrs);
}

/**
 * Why a callback may not be sent over this URL's scheme, or undefined: in production only https.
 * A callback over http travels in clear, so whoever sees one on the way can read it and send it
 * again. One rule for Create Wallet (which refuses such a callback) and the callback-worker (which
 * never sends one, e.g. a wallet registered before the rule).
 */
export function callbackSchemeRefusal(url: URL, requireHttps: boolean): string | undefined {
  if (!requireHttps || url.protocol === 'https:') return undefined;
  return 'must use https in production: a callback sent over http can be read and replayed by anyone on the way';
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
  const control = CONTROL_OR_WHITESPACE.exec(input);
  if (control) {
    const codePoint = `U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
    throw invalidParameter(
      param,
      `${param} contains a control character or whitespace (${codePoint} at character ${control.index + 1}); percent-encode it in ` +
        `the URL (a space is %20), then percent-encode the whole URL as the ${param} value`,
    );
  }
  if (LONE_SURROGATE.test(input)) {
    throw invalidParameter(param, `${param} is not valid Unicode; percent-encode the URL as UTF-8`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw invalidParameter(param, `${param} must use http or https, not ${url.protocol.replace(':', '')}`);
  }
  const insecure = callbackSchemeRefusal(url, rules.requireHttps ?? false);
  if (insecure !== undefined) throw invalidParameter(param, `${param} ${insecure}`);
  if (url.username || url.password) {
    throw invalidParameter(param, `${param} must not carry a user name or password; put a secret token in a query parameter instead`);
  }
  if (url.port === '0') {
    throw invalidParameter(param, `${param} has port 0, which nothing can be reached on; give the shop's real port or none`);
  }
  if (!rules.allowTestDomains && isPlaceholderHost(url.hostname)) {
    throw invalidParameter(param, `${param} points at a placeholder or test domain (${url.hostname}); use the shop's real callback URL`);
  }
  const literal = ipLiteral(url.hostname);
  if (literal !== undefined) {
    const policy = rules.addressPolicy ?? callbackAddressPolicy(rules.allowTestDomains, []);
    const refusal = policy.refusalReason(literal);
    if (refusal !== undefined) {
      throw invalidParameter(
        param,
        `${param} points at ${literal} (${refusal}); the gateway never calls such an address, so the shop would never hear of a ` +
          `payment. Use the shop's public host name`,
      );
    }
  }
  const clash = findGatewayParamIn(input);
  if (clash) {
    throw invalidParameter(
      param,
      `${param} already has a parameter named "${clash}", which the gateway adds itself; rename it (reserved: ` +
        `${GATEWAY_CALLBACK_PARAMS.join(', ')})`,
    );
  }
  return input;
}

/**
 * What a callback URL's ownership is bound to (issue 22): its origin and path in one canonical
 * form, whatever the query or fragment says, since a shop reads `?order=X&x=1` as order X. The
 * WHATWG parser lower-cases the scheme and host (IDNA to punycode, every IPv4 spelling to four
 * decimals), drops the scheme's default port, turns `\` into `/` and resolves `.` and `..`
 * segments (also written `%2e`); on top of it a trailing dot of the host is dropped and a
 * percent-encoded unreserved character (`%69` is `i`) is decoded, the rest upper-cased, as RFC
 * 3986 section 6.2.2 normalises. And the path is read as shops' servers read it, one handler for
 * all its spellings (issue 35): cut at the first `;` (path parameters, `;jsessionid=…`), in lower
 * case (IIS, many routers), with runs of slashes merged (nginx, Apache), and without a trailing
 * index.php or index.html and a trailing slash (a directory, its slash and its index file are
 * one). An encoded `/` or `;` (`%2F`, `%3B`) is a character of a segment and stays. The result is
 * its own canonical form (migration 025 recomputes stored claims from it). `callbackUrl` must have
 * passed parseCallbackUrl.
 */
export function callbackOriginPath(callbackUrl: string): string {
  const url = new URL(callbackUrl);
  return `${canonicalOrigin(url)}${handlerPath(url.pathname)}`;
}

/**
 * The callback's origin (scheme, host and port) in the canonical form of callbackOriginPath: what
 * the per-payout quota counts a new wallet against (new-wallet-limits). `callbackUrl` must have
 * passed parseCallbackUrl.
 */
export function callbackOrigin(callbackUrl: string): string {
  return canonicalOrigin(new URL(callbackUrl));
}

function canonicalOrigin(url: URL): string {
  const host = url.hostname.endsWith('.') ? url.hostname.slice(0, -1) : url.hostname;
  return `${url.protocol}//${host}${url.port === '' ? '' : `:${url.port}`}`;
}

const PERCENT_ENCODED = /%([0-9A-Fa-f]{2})/g;
// Tested against one character at a time.
const UNRESERVED = /[A-Za-z0-9\-._~]/;
const SLASHES = /\/{2,}/g;
const INDEX_FILE = /\/index\.(?:php|html)$/;

/** The path a shop's server runs one handler for: see callbackOriginPath. */
function handlerPath(pathname: string): string {
  const beforeParameters = pathname.split(';', 1)[0]!;
  const path = normalisePercentEncoding(beforeParameters.toLowerCase()).replace(SLASHES, '/');
  const directory = withoutTrailingSlash(withoutTrailingSlash(path).replace(INDEX_FILE, ''));
  return directory === '' ? '/' : directory;
}

function withoutTrailingSlash(path: string): string {
  return path.endsWith('/') ? path.slice(0, -1) : path;
}

function normalisePercentEncoding(path: string): string {
  return path.replace(PERCENT_ENCODED, (_escape, hex: string) => {
    const character = String.fromCharCode(Number.parseInt(hex, 16));
    return UNRESERVED.test(character) ? character.toLowerCase() : `%${hex.toUpperCase()}`;
  });
}

/**
 * The address of an IP-literal host, else undefined (a name: the callback-worker checks what it
 * resolves to, at every attempt). The WHATWG parser has already wrapped IPv6 in brackets and turned
 * every IPv4 spelling (0x7f.1, 2130706433, 0177.0.0.1, 127.1) into four decimal parts; a host whose
 * last label is a number is an IPv4 address or no URL at all, so a host of digits and dots is one.
 */
const IPV4_HOST = /^[\d.]+$/;

function ipLiteral(hostname: string): string | undefined {
  if (hostname.startsWith('[')) return hostname.slice(1, -1);
  return IPV4_HOST.test(hostname) ? hostname : undefined;
}

function isPlaceholderHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return (
    PLACEHOLDER_HOSTS.includes(host) ||
    PLACEHOLDER_HOSTS.some((name) => host.endsWith(`.${name}`)) ||
    PLACEHOLDER_SUFFIXES.some((suffix) => host.endsWith(suffix))
  );
}
