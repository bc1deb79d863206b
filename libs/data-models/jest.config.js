module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'data-models',
  rootDir: __dirname,
  globalSetup: '<rootDir>/testing/global-setup.ts',
  globalTeardown: '<rootDir>/../platform/testing/global-teardown.ts',
};
