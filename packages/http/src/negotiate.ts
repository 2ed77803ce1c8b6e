import Negotiator from 'negotiator';

/**
 * The media type the client prefers among `offered` (the server's order breaks ties, so list the
 * default first), per RFC 9110's Accept rules: q-values (q=0 means "not this"), wildcards,
 * specificity. Undefined when the client accepts none of them.
 */
export function preferredMediaType(accept: string | undefined, offered: readonly string[]): string | undefined {
  return new Negotiator({ headers: { accept } }).mediaType([...offered]);
}

/**
 * Whether a client asked for JSON rather than a page or a redirect: application/json is
 * acceptable to it and not less preferred than text/html. No Accept header, any browser's Accept,
 * `*\/*` and `application/json;q=0` do not ask for JSON.
 */
export function prefersJson(accept: string | undefined): boolean {
  return preferredMediaType(accept, ['text/html', 'application/json']) === 'application/json';
}
