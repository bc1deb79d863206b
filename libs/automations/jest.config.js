module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'automations',
  rootDir: __dirname,
};
