/**
 * The parameters the gateway adds to a merchant's callback URL, in the order they are appended.
 * The merchant's own parameters come first and are never touched. All of them are inside what the
 * signature covers (the full URL as sent): `address_out` (the payout address the merchant's share
 * was paid to) and `value_forwarded_coin` (that share) are what tell a merchant the money reached
 * it, not only that someone paid a wallet carrying its callback URL.
 */
export const DEPOSIT_CALLBACK_PARAMS = [
  'value_coin',
  'value_forwarded_coin',
  'fee_coin',
  'coin',
  'txid_in',
  'txid_out',
  'address_in',
  'address_out',
  'ipn_token',
] as const;

/**
 * What the callback says of its order (issue 34), after the deposit's parameters: the sum of the
 * order's final deposits, what the order should bring and its state (order-state.ts). Each is sent
 * only when the delivery recorded it (none for a delivery written before orders had figures, only
 * the total for an order no attempt gave an expectation), and reserved all the same: a merchant's
 * `order_state=paid` must never reach a shop as the gateway's word.
 */
export const ORDER_CALLBACK_PARAMS = ['order_total_coin', 'order_expected_coin', 'order_state'] as const;

export const GATEWAY_CALLBACK_PARAMS = [...DEPOSIT_CALLBACK_PARAMS, ...ORDER_CALLBACK_PARAMS] as const;

export type GatewayCallbackParamName = (typeof GATEWAY_CALLBACK_PARAMS)[number];

export type GatewayCallbackParams = Readonly<
  Record<(typeof DEPOSIT_CALLBACK_PARAMS)[number], string> & Partial<Record<(typeof ORDER_CALLBACK_PARAMS)[number], string>>
>;

const gatewayParamNames: ReadonlySet<string> = new Set(GATEWAY_CALLBACK_PARAMS);

/**
 * The gateway name a query name reads as, if any: compared after decoding it the way a merchant's
 * framework would (`+` and `%XX`), so `value%5Fcoin` counts; PHP also reads `.` and spaces in
 * names as `_`, so `value.coin` counts too.
 */
function gatewayNameOf(decodedName: string): GatewayCallbackParamName | undefined {
  const asPhpReadsIt = decodedName.replace(/[. ]/g, '_');
  return gatewayParamNames.has(asPhpReadsIt) ? (asPhpReadsIt as GatewayCallbackParamName) : undefined;
}

/**
 * The first of the gateway's parameter names used in the URL's query (in query order), as
 * gatewayNameOf reads names. Undefined when there is none, or when the text is not an absolute URL.
 */
export function findGatewayParamIn(url: string): GatewayCallbackParamName | undefined {
  return gatewayParamsIn(url)[0];
}

/** Every gateway name the URL's query uses, once each, in query order (none for a non-URL). */
export function gatewayParamsIn(url: string): GatewayCallbackParamName[] {
  if (!URL.canParse(url)) return [];
  const found = new Set<GatewayCallbackParamName>();
  for (const name of new URL(url).searchParams.keys()) {
    const gatewayName = gatewayNameOf(name);
    if (gatewayName !== undefined) found.add(gatewayName);
  }
  return [...found];
}

/**
 * The URL the gateway calls: the registered callback with its query kept as the merchant wrote it
 * (names, values, order, repeats and percent-encoding), the gateway's parameters appended after it
 * (an order figure only when given), and any fragment dropped (a fragment is never sent over HTTP).
 *
 * A merchant parameter that reads as one of the gateway's names is dropped, whatever its spelling
 * and however often it appears (also an order figure's name when this callback carries none), so every framework reads exactly one value for that name, the
 * gateway's. Create Wallet refuses such URLs, so this only meets wallets registered before a name
 * was reserved (or rows written around Create Wallet); it never throws for them, because a callback
 * that cannot be built is a payment notice lost. Why dropping rather than keeping both: frameworks
 * disagree on a repeated name (PHP takes the last, Flask and Rails the first, Express makes an
 * array), so the merchant's value could be read as the gateway's (an amount paid!) or break the
 * plugin; the plugins this API serves read these names as the gateway's values.
 *
 * The URL is put in the form the WHATWG URL parser serializes, which is what an HTTP client puts
 * on the wire: the signature covers the full URL as sent, so the string we sign must be that one.
 * For a query this only percent-encodes characters that cannot travel raw (spaces, controls,
 * non-ASCII, quotes, angle brackets); existing escapes, `+`, `&` and `=` stay exactly as written.
 */
export function buildCallbackUrl(registeredUrl: string, params: GatewayCallbackParams): string {
  const url = new URL(registeredUrl);
  url.hash = '';
  const ours = GATEWAY_CALLBACK_PARAMS.flatMap((name) => {
    const value = params[name];
    return value === undefined ? [] : [`${name}=${encodeURIComponent(value)}`];
  }).join('&');
  const withoutFragment = url.href;
  const queryStart = withoutFragment.indexOf('?');
  if (queryStart === -1) return `${withoutFragment}?${ours}`;
  // Split as URLSearchParams and PHP do (on "&" only); every other byte of the query is kept.
  const kept = withoutFragment
    .slice(queryStart + 1)
    .split('&')
    .filter((piece) => !isGatewayParam(piece))
    .join('&');
  // A query that is empty ("cb?") or already ends in "&" needs no extra separator.
  const separator = kept === '' || kept.endsWith('&') ? '' : '&';
  return `${withoutFragment.slice(0, queryStart)}?${kept}${separator}${ours}`;
}

function isGatewayParam(piece: string): boolean {
  const [name] = new URLSearchParams(piece).keys();
  return name !== undefined && gatewayNameOf(name) !== undefined;
}
