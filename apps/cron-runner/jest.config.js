module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'cron-runner',
  rootDir: __dirname,
};
