import ipaddr from 'ipaddr.js';
import { callbackAddressPolicy } from './callback-url';

/**
 * What production refuses of an operator's settings, one rule each, applied by every app that has
 * the setting (through @gateway/config and the provider registry): a value that only makes sense
 * on a local stack or a test network must stop the boot, not run a gateway that takes real money.
 */

/**
 * The mark the deployment templates (infra/k8s, secrets.example.yaml) put where a site's own value
 * goes. Refused in every setting and every mode: a URL such as `postgres://user:REPLACE-ME@host/db`
 * passes every pattern and would be tried as a password.
 */
export const SETTING_PLACEHOLDER = 'REPLACE-ME';

/** Why a setting's value cannot be used because it still holds the templates' placeholder, or undefined. */
export function placeholderSettingRefusal(value: string): string | undefined {
  return value.includes(SETTING_PLACEHOLDER) ? `still holds the template's ${SETTING_PLACEHOLDER}; give the site's own value` : undefined;
}

/** Polygon PoS mainnet, the only chain a production gateway pays out on. */
export const POLYGON_CHAIN_ID = 137;
/** Polygon Amoy, the testnet: production accepts it only when the operator says testnet (CHAIN_NETWORK). */
export const POLYGON_TESTNET_CHAIN_ID = 80_002;

export type ChainNetwork = 'mainnet' | 'testnet';

/** Why a production gateway may not run on `chainId` on the `network` the operator named, or undefined. */
export function productionChainRefusal(chainId: number, network: ChainNetwork): string | undefined {
  if (network === 'mainnet') {
    return chainId === POLYGON_CHAIN_ID
      ? undefined
      : `${chainId} is not Polygon PoS (${POLYGON_CHAIN_ID}); a test network (Polygon Amoy, ${POLYGON_TESTNET_CHAIN_ID}) needs ` +
          `CHAIN_NETWORK=testnet, a local chain is never production`;
  }
  return chainId === POLYGON_TESTNET_CHAIN_ID
    ? undefined
    : `${chainId} is not Polygon Amoy (${POLYGON_TESTNET_CHAIN_ID}), the only test network production runs on with CHAIN_NETWORK=testnet`;
}

// The callbacks' address rule with nothing exempt: public unicast addresses only.
const PUBLIC_ADDRESSES_ONLY = callbackAddressPolicy(false, []);

/**
 * Why `value` cannot be the public base URL of a production host (customers are sent to it,
 * providers post webhooks to it), or undefined: https only, and a host that is a public name or a
 * public address by the same rule as merchant callbacks, so loopback in any spelling
 * (https://[::ffff:7f00:1], https://2130706433, localhost.) is refused.
 */
export function productionPublicUrlRefusal(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'not a URL';
  }
  if (url.protocol !== 'https:') return `must be https in production (got ${url.protocol})`;
  const host = bareHost(url);
  if (host === 'localhost' || host.endsWith('.localhost')) return `${host} is a loopback name`;
  if (!ipaddr.isValid(host)) return undefined;
  return PUBLIC_ADDRESSES_ONLY.refusalReason(host);
}

/**
 * The host name of a public URL that the boot must resolve, or undefined when its host is an
 * address (productionPublicUrlRefusal judges those) or it is no URL. A name passes that rule by its
 * spelling alone, yet 127.0.0.1.nip.io or localhost.localdomain lead to loopback: only its
 * addresses tell (resolvedPublicHostRefusal).
 */
export function publicUrlHostName(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  const host = bareHost(url);
  return ipaddr.isValid(host) ? undefined : host;
}

/**
 * Why a public URL's host name, resolving to `addresses`, is not a public host, or undefined: every
 * address must be public by the rule merchant callbacks are held to (a customer's browser or a
 * provider may be given any of them), and a name with no address at all is no host.
 */
export function resolvedPublicHostRefusal(host: string, addresses: readonly string[]): string | undefined {
  if (addresses.length === 0) return `${host} resolves to no address`;
  for (const address of addresses) {
    const reason = PUBLIC_ADDRESSES_ONLY.refusalReason(address);
    if (reason !== undefined) return `${host} resolves to ${address}: ${reason}`;
  }
  return undefined;
}

/** The URL's host, lower-case, without IPv6 brackets and a trailing dot; the WHATWG parser has already written any IPv4 spelling (2130706433, 0x7f.1) as a.b.c.d. */
function bareHost(url: URL): string {
  const bare = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return bare.replace(/\.$/, '').toLowerCase();
}

/** Shortest secret (in characters) production accepts where the operator chooses it, or where a short one means a placeholder. */
export const MIN_PRODUCTION_SECRET_CHARACTERS = 32;

/** Why a secret is too short for production, or undefined; never quotes the secret. */
export function shortSecretRefusal(value: string): string | undefined {
  return value.length >= MIN_PRODUCTION_SECRET_CHARACTERS
    ? undefined
    : `at least ${MIN_PRODUCTION_SECRET_CHARACTERS} characters in production (this one has ${value.length}): a short key lets anyone ` +
        `who tries enough forge what it signs`;
}

/**
 * Why `value` cannot be a production app's REDIS_URL, or undefined: each app connects as a Redis
 * ACL user of its own, limited to its keys (as it has a PostgreSQL role of its own), never as the
 * default user, the one every connection without credentials is.
 */
export function productionRedisUrlRefusal(value: string): string | undefined {
  let user: string;
  try {
    user = decodeURIComponent(new URL(value).username);
  } catch {
    return 'not a URL';
  }
  if (user !== '' && user !== 'default') return undefined;
  return "must name this app's own Redis user in production (redis://<user>:<password>@host, made by `gateway redis acl`), never the default user";
}
