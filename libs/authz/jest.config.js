module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'authz',
  rootDir: __dirname,
};
