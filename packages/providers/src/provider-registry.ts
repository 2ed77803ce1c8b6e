import { PROVIDER_CATALOGUE } from '@gateway/domain';
import type { ProviderAdapter } from './provider-adapter';
import { createSandboxAdapter, type SandboxAdapterOptions } from './sandbox-adapter';

/**
 * One adapter per catalogue entry. Until a provider's live adapter and credentials exist, the
 * sandbox adapter serves it, so every identifier of the catalogue works end to end locally.
 */
export function createProviderRegistry(options: { sandbox: SandboxAdapterOptions }): ReadonlyMap<string, ProviderAdapter> {
  return new Map(PROVIDER_CATALOGUE.map((provider) => [provider.id, createSandboxAdapter(provider.id, options.sandbox)]));
}
