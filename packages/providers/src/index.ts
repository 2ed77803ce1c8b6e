export * from './provider-contract';
export * from './provider-settings';
export * from './provider-modules';
export * from './known-providers';
export * from './provider-registry';
export * from './sandbox-adapter';
export * from './support/provider-http-client';
export * from './support/shared-token-store';
