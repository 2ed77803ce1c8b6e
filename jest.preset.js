// Shared jest settings for every workspace project (see jest.config.js at the root).
// ESM-only dependencies are transformed to CommonJS by swc (TOOLCHAIN trap 4).
const esmOnly = ['typebox', 'cookie', '@noble', '@scure', 'content-disposition', 'jose'].join('|');
// Chain and process tests on a busy 2-core machine need the room. Jest reads it from the config it
// was started with only: the root's for `npm test`, a package's own when run from its folder.
const TEST_TIMEOUT_MS = 30000;

/** @param {string} dir @param {string} name */
module.exports = function preset(dir, name) {
  return {
    displayName: name,
    rootDir: dir,
    testEnvironment: 'node',
    // Workspace packages resolve to their TypeScript sources (package.json exports), so tests never
    // need a build; jest's own defaults follow.
    testEnvironmentOptions: { customExportConditions: ['@gateway/source', 'node', 'node-addons'] },
    testMatch: ['<rootDir>/src/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
    transform: {
      '^.+\\.(t|mj|j)s$': [
        '@swc/jest',
        {
          jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
          module: { type: 'commonjs' },
        },
      ],
    },
    transformIgnorePatterns: [`/node_modules/(?!(\\.pnpm/)?(${esmOnly}))`],
    testTimeout: TEST_TIMEOUT_MS,
  };
};
module.exports.TEST_TIMEOUT_MS = TEST_TIMEOUT_MS;
