// What the watcher benchmark (bench/src/watcher-bench.ts) drives on its own.
export { WatcherMetrics } from './metrics';
export { ChainReader } from './services/chain-reader';
export { DepositScanner, type ScanResult } from './services/deposit-scanner';
