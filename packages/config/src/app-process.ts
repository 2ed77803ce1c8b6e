/**
 * How an app's process is started, wherever it is started (local stack, benchmarks, images), so
 * what is measured is what runs.
 *
 * TypeScript runs through tsx's CommonJS hook: the ESM loader (`--import tsx`) runs its hooks in
 * a thread of its own, about 15 MB more per process for nothing this CommonJS code base needs.
 *
 * The two API apps keep little live data (~50 MB of heap under load, with the Create Wallet
 * memory full), but V8 lets the old generation grow far beyond that before it collects, so RSS
 * after a burst stood at ~230 MB. A 96 MB old generation and 8 MB semi-spaces (the default is 16)
 * keep it under 150 MB at the same throughput (README, "Benchmarks").
 */
const TYPESCRIPT_RUNNER = ['--require', 'tsx/cjs'];
const API_APP_HEAP = ['--max-semi-space-size=8', '--max-old-space-size=96'];
const API_APPS = new Set(['wallet-control', 'payment-redirect']);

/** Node's arguments before the entry file of `app` (its folder name under apps/). */
export function appNodeArguments(app: string): string[] {
  return API_APPS.has(app) ? [...API_APP_HEAP, ...TYPESCRIPT_RUNNER] : TYPESCRIPT_RUNNER;
}
