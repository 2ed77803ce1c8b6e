/**
 * A checkout link: `base` with the provider's documented query parameters appended in the order
 * given (some providers sign the query as sent); a parameter whose value is undefined is left out.
 */
export function urlWithQuery(base: string | URL, parameters: Readonly<Record<string, string | undefined>>): URL {
  const url = new URL(base);
  for (const [name, value] of Object.entries(parameters)) {
    if (value !== undefined) url.searchParams.append(name, value);
  }
  return url;
}
