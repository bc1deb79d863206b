module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'platform',
  rootDir: __dirname,
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/deploy/**/*.spec.ts'],
  globalSetup: '<rootDir>/testing/global-setup.ts',
  globalTeardown: '<rootDir>/testing/global-teardown.ts',
};
