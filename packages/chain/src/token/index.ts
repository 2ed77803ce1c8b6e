export * from './contract-artifact';
export * from './compile-solidity';
export * from './test-usdc-artifact';
export * from './test-usdc-deploy';
export * from './token-domain';
export * from './transfer-authorization';
export * from './usdc-abi';
