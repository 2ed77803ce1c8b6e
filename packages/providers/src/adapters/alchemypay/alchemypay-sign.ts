/**
 * The signed content Alchemy Pay uses for its API calls (https://alchemypay.readme.io/docs/api-sign)
 * and its webhooks (https://alchemypay.readme.io/docs/webhook-signature): timestamp + method + path +
 * the body's fields without empty values (null or ""), in ascending order of name, as compact JSON.
 * Built pair by pair so that names that look like numbers keep their sorted place (an object literal
 * would move them first).
 */
export function alchemyPaySignContent(
  timestamp: string,
  method: 'POST',
  requestPath: string,
  fields: Readonly<Record<string, unknown>>,
): string {
  return `${timestamp}${method}${requestPath}${alchemyPaySortedJson(fields)}`;
}

/** The fields without empty values, sorted by name, as compact JSON: the form both signatures sign. */
export function alchemyPaySortedJson(fields: Readonly<Record<string, unknown>>): string {
  const pairs = Object.keys(fields)
    .filter((name) => fields[name] !== null && fields[name] !== '')
    .sort()
    .map((name) => `${JSON.stringify(name)}:${JSON.stringify(fields[name])}`);
  return `{${pairs.join(',')}}`;
}
