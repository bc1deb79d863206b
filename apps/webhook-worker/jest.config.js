module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'webhook-worker',
  rootDir: __dirname,
};
