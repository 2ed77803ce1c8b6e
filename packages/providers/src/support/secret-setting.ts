import { MIN_PRODUCTION_SECRET_CHARACTERS } from '@gateway/domain';
import { Type } from '@sinclair/typebox';

/**
 * A provider secret (it signs checkouts, verifies webhooks or authenticates the gateway): refused at
 * boot in production under MIN_PRODUCTION_SECRET_CHARACTERS, since no provider documents the length
 * of what it issues. `format` is the provider's documented pattern, else the least length it takes.
 */
export function secretSetting(format: { pattern: string } | { minLength: number }, description: string) {
  return Type.String({ ...format, productionMinLength: MIN_PRODUCTION_SECRET_CHARACTERS, description });
}
