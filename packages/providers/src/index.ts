export * from './provider-adapter';
export * from './sandbox-adapter';
export * from './provider-registry';
