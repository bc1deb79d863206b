module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'field-validation',
  rootDir: __dirname,
};
