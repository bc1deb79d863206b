module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'automations',
  rootDir: __dirname,
  globalSetup: '<rootDir>/testing/global-setup.ts',
  globalTeardown: '<rootDir>/../platform/testing/global-teardown.ts',
};
