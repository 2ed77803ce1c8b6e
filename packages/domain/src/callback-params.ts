/**
 * The parameters the gateway adds to a merchant's callback URL, in the order they are appended.
 * The merchant's own parameters come first and are never touched.
 */
export const GATEWAY_CALLBACK_PARAMS = [
  'value_coin',
  'value_forwarded_coin',
  'fee_coin',
  'coin',
  'txid_in',
  'txid_out',
  'address_in',
  'ipn_token',
] as const;

export type GatewayCallbackParamName = (typeof GATEWAY_CALLBACK_PARAMS)[number];

export type GatewayCallbackParams = Readonly<Record<GatewayCallbackParamName, string>>;

const gatewayParamNames: ReadonlySet<string> = new Set(GATEWAY_CALLBACK_PARAMS);

/**
 * The first of the gateway's parameter names used in the URL's query (in query order), compared
 * after decoding the names the way a merchant's framework would (`+` and `%XX`), so `value%5Fcoin`
 * counts. PHP also reads `.` and spaces in names as `_`, so `value.coin` counts too.
 * Undefined when there is none, or when the text is not an absolute URL.
 */
export function findGatewayParamIn(url: string): GatewayCallbackParamName | undefined {
  if (!URL.canParse(url)) return undefined;
  for (const name of new URL(url).searchParams.keys()) {
    const asPhpReadsIt = name.replace(/[. ]/g, '_');
    if (gatewayParamNames.has(asPhpReadsIt)) return asPhpReadsIt as GatewayCallbackParamName;
  }
  return undefined;
}

/**
 * The URL the gateway calls: the registered callback with its query kept as the merchant wrote it
 * (names, values, order, repeats and percent-encoding), the gateway's parameters appended after it,
 * and any fragment dropped (a fragment is never sent over HTTP).
 *
 * The URL is put in the form the WHATWG URL parser serializes, which is what an HTTP client puts
 * on the wire: the signature covers the full URL as sent, so the string we sign must be that one.
 * For a query this only percent-encodes characters that cannot travel raw (spaces, controls,
 * non-ASCII, quotes, angle brackets); existing escapes, `+`, `&` and `=` stay exactly as written.
 */
export function buildCallbackUrl(registeredUrl: string, params: GatewayCallbackParams): string {
  const collision = findGatewayParamIn(registeredUrl);
  if (collision !== undefined) {
    // Create Wallet refuses such callbacks; meeting one here means that check was bypassed.
    throw new Error(`callback URL already uses the gateway parameter "${collision}"`);
  }
  const url = new URL(registeredUrl);
  url.hash = '';
  const withoutFragment = url.href;
  const ours = GATEWAY_CALLBACK_PARAMS.map(
    (name) => `${name}=${encodeURIComponent(params[name])}`,
  ).join('&');
  if (!withoutFragment.includes('?')) return `${withoutFragment}?${ours}`;
  // A query that is empty ("cb?") or already ends in "&" needs no extra separator.
  const separator = withoutFragment.endsWith('?') || withoutFragment.endsWith('&') ? '' : '&';
  return `${withoutFragment}${separator}${ours}`;
}
