import { PROVIDER_CATALOGUE } from '@gateway/domain';
import type { ProviderAdapter } from './provider-adapter';
import { createSandboxAdapter, type SandboxAdapterOptions } from './sandbox-adapter';

export interface ProviderRegistryOptions {
  sandbox: SandboxAdapterOptions;
  /** False in production: a simulated checkout must never be linked from a real gateway. */
  allowSandbox: boolean;
}

/**
 * One adapter per catalogue entry. Until a provider's live adapter and credentials exist, the
 * sandbox adapter serves it, so every identifier of the catalogue works end to end locally; in
 * production that is refused at boot.
 */
export function createProviderRegistry(options: ProviderRegistryOptions): ReadonlyMap<string, ProviderAdapter> {
  const registry = new Map(PROVIDER_CATALOGUE.map((provider) => [provider.id, createSandboxAdapter(provider.id, options.sandbox)]));
  const simulated = [...registry.values()].filter((adapter) => !adapter.capabilities.live).map((adapter) => adapter.id);
  if (!options.allowSandbox && simulated.length > 0) {
    throw new Error(
      `the sandbox (simulated checkout) would serve ${simulated.join(', ')}; in production every provider needs a live adapter with credentials`,
    );
  }
  return registry;
}
