module.exports = {
  ...require('../jest.preset.js'),
  displayName: 'tools',
  rootDir: __dirname,
  testMatch: ['<rootDir>/scripts/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
  // The scripts start the apps, which run every module: the runtime's set-up migrates them all.
  globalSetup: '<rootDir>/../libs/runtime/testing/global-setup.ts',
  globalTeardown: '<rootDir>/../libs/platform/testing/global-teardown.ts',
  testTimeout: 120000,
};
