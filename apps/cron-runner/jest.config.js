module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'cron-runner',
  rootDir: __dirname,
  // The app runs every module: the runtime's set-up migrates them all.
  globalSetup: '<rootDir>/../../libs/runtime/testing/global-setup.ts',
  globalTeardown: '<rootDir>/../../libs/platform/testing/global-teardown.ts',
  testTimeout: 30000,
};
