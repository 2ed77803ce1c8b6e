export { buildSandboxProviderApp, type SandboxProviderDeps } from './app';
export { TEST_CARDS, type TestCard } from './services/card-check';
