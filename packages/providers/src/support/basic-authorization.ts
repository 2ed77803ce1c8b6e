/** An HTTP Basic `Authorization` value (RFC 7617): base64 of `user:password`, as the provider's API takes its credentials. */
export function basicAuthorization(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}
