// The app's plugins, one file each; app.ts registers them in boot order.
export { watcherMetrics } from './watcher-metrics';
export { chainReader } from './chain-reader';
export { watchedTokens } from './watched-tokens';
export { chainWatcher } from './chain-watcher';
