// One jest run over every workspace project, so the test command prints one summary.
module.exports = {
  projects: [
    '<rootDir>/packages/*/jest.config.js',
    '<rootDir>/apps/*/jest.config.js',
    '<rootDir>/e2e/jest.config.js',
    '<rootDir>/infra/*/jest.config.js',
    '<rootDir>/bench/jest.config.js',
  ],
  // Global: a run of several projects reads it here, not from theirs (jest.preset.js).
  testTimeout: require('./jest.preset.js').TEST_TIMEOUT_MS,
};
