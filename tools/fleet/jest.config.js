// The fleet test: the apps as a fleet of hosts in network namespaces, on a PostgreSQL and a
// PgBouncer of its own. Run once by CI, as root (`npm run test:fleet`), not by `npm test`.
module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'fleet',
  rootDir: __dirname,
  testMatch: ['<rootDir>/*.spec.ts'],
  testTimeout: 360000,
};
