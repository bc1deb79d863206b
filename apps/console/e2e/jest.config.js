module.exports = {
  ...require('../../../jest.preset.js'),
  displayName: 'console-e2e',
  rootDir: __dirname,
  testMatch: ['<rootDir>/**/*.spec.ts'],
  globalSetup: '<rootDir>/support/global-setup.ts',
  globalTeardown: '<rootDir>/support/global-teardown.ts',
  // A browser, an api process and its database: one file at a time, and time for a cold start.
  maxWorkers: 1,
  testTimeout: 120000,
};
