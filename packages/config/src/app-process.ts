/**
 * How an app's process is started, wherever it is started (local stack, tests, benchmarks), so
 * what is measured is what runs.
 *
 * From source (development and tests), TypeScript runs through tsx's CommonJS hook: the ESM
 * loader (`--import tsx`) runs its hooks in a thread of its own, about 15 MB more per process for
 * nothing this CommonJS code base needs. The `@gateway/source` export condition makes every
 * workspace package resolve to its src/ too, so nothing has to be built first. From dist (what
 * `pnpm build` compiles, what the images run) it is plain node.
 *
 * The two API apps keep little live data (~50 MB of heap under load, with the Create Wallet
 * memory full), but V8 lets the old generation grow far beyond that before it collects, so RSS
 * after a burst stood at ~230 MB. A 96 MB old generation and 8 MB semi-spaces (the default is 16)
 * keep it under 150 MB at the same throughput (docs/benchmarks.md). The images take the same
 * flags from NODE_OPTIONS (infra/k8s).
 */
export type AppRuntime = 'source' | 'dist';

const SOURCE_CONDITION = '@gateway/source';
const TYPESCRIPT_RUNNER = [`--conditions=${SOURCE_CONDITION}`, '--require', 'tsx/cjs'];
const API_APP_HEAP = ['--max-semi-space-size=8', '--max-old-space-size=96'];
const API_APPS = new Set(['wallet-control', 'payment-redirect']);

/** Node's arguments before the entry file of `app` (its folder name under apps/). */
export function appNodeArguments(app: string, runtime: AppRuntime = 'source'): string[] {
  const heap = API_APPS.has(app) ? API_APP_HEAP : [];
  return runtime === 'source' ? [...heap, ...TYPESCRIPT_RUNNER] : heap;
}

/** The entry file of `app`, relative to the repository root. */
export function appEntry(app: string, runtime: AppRuntime = 'source'): string {
  return runtime === 'source' ? `apps/${app}/src/main.ts` : `apps/${app}/dist/main.js`;
}
