// One jest run over every workspace project, so the test command prints one summary.
module.exports = {
  projects: [
    '<rootDir>/packages/*/jest.config.js',
    '<rootDir>/apps/*/jest.config.js',
    '<rootDir>/e2e/jest.config.js',
    '<rootDir>/infra/*/jest.config.js',
    '<rootDir>/bench/jest.config.js',
  ],
  // Global, not per project: chain and process tests on a busy 2-core machine need the room.
  testTimeout: 30000,
};
