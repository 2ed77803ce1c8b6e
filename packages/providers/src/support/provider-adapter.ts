import type { AdapterContext, ProviderAdapter, ProviderDescriptor } from '../provider-contract';

/** The adapter of the provider `descriptor` in the context's mode, doing what `methods` do. */
export function providerAdapter(
  descriptor: ProviderDescriptor,
  context: Pick<AdapterContext, 'mode'>,
  methods: Omit<ProviderAdapter, 'descriptor' | 'mode'>,
): ProviderAdapter {
  return { descriptor, mode: context.mode, ...methods };
}
