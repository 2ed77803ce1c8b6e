export * from './local-setup';
export * from './demo-merchant';
