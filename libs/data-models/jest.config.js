module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'data-models',
  rootDir: __dirname,
};
