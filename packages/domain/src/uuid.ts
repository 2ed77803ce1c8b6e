const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether `value` is written as a UUID (8-4-4-4-12 hex digits, either case): the shape of every id
 * the gateway hands out (payments, callback deliveries), checked before PostgreSQL's uuid cast
 * would refuse it with an error.
 */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
