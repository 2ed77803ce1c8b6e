// One jest run over every workspace project, so the test command prints one summary.
module.exports = {
  projects: ['<rootDir>/packages/*/jest.config.js', '<rootDir>/apps/*/jest.config.js'],
};
