// The fault suite: the three apps as processes, a receiver and an embedded PostgreSQL of its own,
// under faults. Run once by CI (`npm run test:faults`), not by `npm test`.
module.exports = {
  ...require('../../jest.preset.js'),
  displayName: 'faults',
  rootDir: __dirname,
  testMatch: ['<rootDir>/*.spec.ts'],
  testTimeout: 600000,
};
