// The forms of the identifiers the gateway hands out or reads from the chain, written once: the apps,
// the repositories and the operator's commands tell them apart and check them by these.

/** An EVM address in its 0x-and-hex spelling (`isHexAddress` checks the form; evm-address.ts parses it). */
export type EvmAddress = `0x${string}`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// deposits.id is a bigserial: positive, and at most 19 digits to fit PostgreSQL's bigint.
const DEPOSIT_ID = /^[1-9][0-9]{0,18}$/;
const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const TX_HASH = /^0x[0-9a-fA-F]{64}$/;

/**
 * Whether `value` is written as a UUID (8-4-4-4-12 hex digits, either case): the shape of every id
 * the gateway hands out (payments, callback deliveries), checked before PostgreSQL's uuid cast
 * would refuse it with an error.
 */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** Whether `value` is written as a deposit id (`deposits.id`), checked before PostgreSQL's bigint cast would refuse it. */
export function isDepositId(value: string): boolean {
  return DEPOSIT_ID.test(value);
}

/** Whether `value` is written as an EVM address: 0x and 40 hex digits, in any case (no checksum checked). */
export function isHexAddress(value: string): boolean {
  return HEX_ADDRESS.test(value);
}

/** Whether `value` is written as a transaction hash: 0x and 64 hex digits, in any case. */
export function isTxHash(value: string): boolean {
  return TX_HASH.test(value);
}
