// Mutation testing (`pnpm mutate`, scripts/mutate.mjs): StrykerJS over the packages that hold the
// money and trust rules, one package per run. Each package's stryker.config.mjs calls this; run it
// from the repository root, since its jest config needs the root jest.preset.js.
// Not part of `pnpm test` or CI: a full run takes tens of minutes on two cores.

// Stryker looks for plugins beside its own package, which pnpm keeps apart: name them by path
// (their ESM entry points, which hold the plugins).
const plugins = ['@stryker-mutator/jest-runner', '@stryker-mutator/typescript-checker'].map((name) => import.meta.resolve(name));

/** @param {string} name the folder under packages/ */
export function mutationConfig(name) {
  const reports = `reports/mutation/${name}`;
  return {
    packageManager: 'pnpm',
    plugins,
    testRunner: 'jest',
    // The package's own jest project (the root config runs every project at once).
    jest: { projectType: 'custom', configFile: `packages/${name}/jest.config.js`, enableFindRelatedTests: true },
    // A mutant that does not compile is no test gap: the type checker rules it out before any test runs.
    checkers: ['typescript'],
    tsconfigFile: `packages/${name}/tsconfig.stryker.json`,
    coverageAnalysis: 'perTest',
    mutate: [`packages/${name}/src/**/*.ts`],
    // Copy only what the package's tests need into the sandbox; every node_modules is linked, not copied.
    ignorePatterns: [
      '/*',
      '!/package.json',
      '!/jest.preset.js',
      '!/tsconfig.base.json',
      '!/tsconfig.test.json',
      '!/packages',
      '/packages/*',
      `!/packages/${name}`,
    ],
    concurrency: 2,
    // Re-runs test only the mutants whose code or tests changed since the last run on this machine.
    incremental: true,
    incrementalFile: `${reports}/stryker-incremental.json`,
    reporters: ['clear-text', 'progress', 'html', 'json'],
    htmlReporter: { fileName: `${reports}/index.html` },
    jsonReporter: { fileName: `${reports}/mutation.json` },
    thresholds: { high: 90, low: 80, break: null },
    tempDirName: '.stryker-tmp',
  };
}
