import type { ProviderCatalogue, ProviderTerms } from '@gateway/domain';
import { POLYGON_USDC, type ProviderAdapter, type ProviderModule } from './provider-contract';
import { PROVIDERS_NOT_OFFERED, SPECIFICATION_ORDER } from './known-providers';
import { PROVIDER_MODULES } from './provider-modules';
import { ALLOW_PROVIDER_TEST_MODE, providerEnvName, readProviderSettings } from './provider-settings';
import { createSandboxAdapter, type SandboxAdapterOptions } from './sandbox-adapter';
import { ASSUMED_CARD_FEES } from './support/assumed-card-fees';
import type { ProviderHttpClient } from './support/provider-http-client';
import { observedHttpClient, type ProviderObserver } from './support/provider-call-observer';
import type { ProviderEventStore } from './support/provider-event-store';
import { createTokenStore, type SharedKeyValue } from './support/shared-token-store';

export interface ProviderRegistryOptions {
  /** The app's raw settings: `PROVIDER_<ID>_<NAME>` values are read from it. */
  env: Readonly<Record<string, unknown>>;
  /** Set: the sandbox stands in for every provider without credentials (a local stack, never production). */
  sandbox?: SandboxAdapterOptions;
  production: boolean;
  /** {payment_url}: webhooks arrive at `<publicUrl>/webhooks/<id>`. */
  publicUrl: string;
  /** The token the chain watcher follows: a provider delivering another cannot be used. */
  token: { chainId: number; address: string };
  http: ProviderHttpClient;
  /** Where provider tokens are shared between replicas (Redis, under the app's prefix). */
  sharedStore: SharedKeyValue;
  /** Where events read from a provider's queue are kept (PostgreSQL); without it such a provider's look-ups fail. */
  events?: ProviderEventStore;
  now?: () => number;
  /** Told each adapter's calls (latency, outcome) and token mints, by provider; nothing told without one. */
  observer?: ProviderObserver;
  /** Tests use their own modules; the gateway uses PROVIDER_MODULES. */
  modules?: readonly ProviderModule[];
}

/** The configured gateway's providers: what Process Payment and pay.php offer, and each one's adapter. */
export interface ProviderRegistry extends ProviderCatalogue {
  adapter(id: string): ProviderAdapter | undefined;
  /**
   * Who verifies the webhooks posted to `/webhooks/<endpoint>`, and the providers whose payments
   * they may be about (a provider and those running on its account); undefined when none of the
   * offered providers receives webhooks there.
   */
  webhookReceiver(endpoint: string): { adapter: ProviderAdapter; providers: readonly string[] } | undefined;
  /** Every adapter in service (real and sandbox), in the order offered. */
  readonly adapters: readonly ProviderAdapter[];
}

export class ProviderConfigurationError extends Error {
  constructor(readonly problems: string[]) {
    super(`provider settings:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ProviderConfigurationError';
  }
}

const NOT_CONFIGURED = 'not configured by this operator';

/**
 * The terms of any provider this gateway has an adapter for, by id, whatever is configured: the
 * sandbox app names the provider it stands in for with it.
 */
export function knownProviderTerms(id: string): ProviderTerms | undefined {
  return PROVIDER_MODULES.find((module) => module.descriptor.id === id)?.descriptor;
}

/**
 * Builds the adapters from the settings at boot. A provider with credentials gets its own adapter
 * in the mode its credentials select; one without is served by the sandbox when the sandbox is
 * on, and otherwise not offered. A provider that delivers a USDC the chain watcher does not
 * follow, a half-configured provider, the sandbox in production, and in production a provider in
 * its test mode (unless ALLOW_PROVIDER_TEST_MODE=true) or a webhook key shorter than its setting's
 * productionMinLength stop the boot with every problem named.
 */
export async function createProviderRegistry(options: ProviderRegistryOptions): Promise<ProviderRegistry> {
  const modules = options.modules ?? PROVIDER_MODULES;
  const problems: string[] = [];
  if (options.sandbox && options.production) {
    problems.push(
      'SANDBOX_CHECKOUT: the sandbox (a simulated checkout) is refused in production; configure real providers (PROVIDER_<ID>_...) instead',
    );
  }
  const { configured, problems: settingProblems } = readProviderSettings(modules, options.env, { production: options.production });
  const testModeAllowed = options.env[ALLOW_PROVIDER_TEST_MODE] === true || options.env[ALLOW_PROVIDER_TEST_MODE] === 'true';
  problems.push(...settingProblems);

  const built = new Map<string, ProviderAdapter>();
  for (const { module, settings, requestedMode } of configured) {
    const { descriptor } = module;
    try {
      const mode = module.modeOf(settings as never, requestedMode);
      if (mode === 'test' && options.production && !testModeAllowed) {
        problems.push(
          `${providerEnvName(descriptor.id, '*')}: ${descriptor.displayName}'s credentials select its test mode ` +
            `(${descriptor.hosts.test}), refused in production: its sandbox's webhooks could mark real orders paid; give live ` +
            `credentials, or set ${ALLOW_PROVIDER_TEST_MODE}=true for a deployment that takes no real money`,
        );
        continue;
      }
      const delivered = POLYGON_USDC[descriptor.delivers];
      if (mode === 'live' && options.token.chainId === 137 && delivered.toLowerCase() !== options.token.address.toLowerCase()) {
        problems.push(
          `${providerEnvName(descriptor.id, '*')}: ${descriptor.displayName} delivers ` +
            `${descriptor.delivers === 'bridged' ? 'USDC.e' : 'USDC'} (${delivered}) but USDC_TOKEN_ADDRESS is ` +
            `${options.token.address}: the chain watcher would never see its payments; remove its settings or follow that token`,
        );
        continue;
      }
      const { observer } = options;
      const adapter = await module.create(settings as never, {
        mode,
        webhookUrl: `${options.publicUrl}/webhooks/${descriptor.id}`,
        http: observer ? observedHttpClient(options.http, descriptor.id, observer) : options.http,
        tokens: createTokenStore(options.sharedStore, {
          prefix: `provider-tokens:${descriptor.id}:`,
          ...(options.now ? { now: options.now } : {}),
          ...(observer ? { onMinted: () => observer.tokenMinted(descriptor.id) } : {}),
        }),
        ...(options.events ? { events: options.events } : {}),
        now: options.now ?? Date.now,
      });
      built.set(descriptor.id, adapter);
    } catch (error) {
      problems.push(`${providerEnvName(descriptor.id, '*')}: ${(error as Error).message}`);
    }
  }
  if (problems.length > 0) throw new ProviderConfigurationError(problems);

  const offered: ProviderAdapter[] = [];
  const notOffered = new Map<string, string>();
  const known = new Map<string, ProviderTerms>();
  for (const { descriptor } of modules) {
    known.set(descriptor.id, descriptor);
    const adapter = built.get(descriptor.id) ?? (options.sandbox ? createSandboxAdapter(descriptor, options.sandbox) : undefined);
    if (adapter) offered.push(adapter);
    else notOffered.set(descriptor.id, NOT_CONFIGURED);
  }
  for (const { id, displayName, reason } of PROVIDERS_NOT_OFFERED) {
    // Never offered, so never estimated: the assumed card range only keeps its terms whole.
    known.set(id, { id, displayName, currency: 'any', minimum: '0', minimumCurrency: 'USD', fees: ASSUMED_CARD_FEES });
    notOffered.set(id, reason);
  }

  const rank = (adapter: ProviderAdapter) => {
    const index = SPECIFICATION_ORDER.indexOf(adapter.descriptor.id);
    return index === -1 ? SPECIFICATION_ORDER.length : index;
  };
  // Stable: providers outside the specification keep the order of PROVIDER_MODULES, after it.
  offered.sort((a, b) => rank(a) - rank(b));
  const byId = new Map(offered.map((adapter) => [adapter.descriptor.id, adapter]));
  const endpointOf = (adapter: ProviderAdapter) =>
    adapter.mode === 'sandbox' ? adapter.descriptor.id : (adapter.descriptor.account ?? adapter.descriptor.id);
  return {
    offered: offered.map((adapter) => adapter.descriptor),
    adapters: offered,
    adapter: (id) => byId.get(id),
    webhookReceiver(endpoint) {
      const sharing = offered.filter((adapter) => endpointOf(adapter) === endpoint && adapter.descriptor.webhook !== null);
      const [first] = sharing;
      return first ? { adapter: first, providers: sharing.map((adapter) => adapter.descriptor.id) } : undefined;
    },
    describe: (id) => known.get(id),
    notOfferedReason: (id) => notOffered.get(id),
  };
}
