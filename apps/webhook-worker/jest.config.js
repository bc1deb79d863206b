module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'webhook-worker',
  rootDir: __dirname,
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  testTimeout: 30000,
};
