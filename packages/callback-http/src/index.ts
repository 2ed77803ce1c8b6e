export * from './address-policy';
export * from './callback-http-client';
export * from './guarded-connector';
