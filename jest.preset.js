// Shared Jest settings: TypeScript through SWC (CommonJS at test time) and the workspace path aliases.
const path = require('node:path');

const swcTransform = [
  '@swc/jest',
  {
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
  },
];

module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': swcTransform },
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper: {
    '^@mrp/platform/deploy$': path.join(__dirname, 'libs/platform/deploy/index.ts'),
    '^@mrp/platform/dev$': path.join(__dirname, 'libs/platform/dev/index.ts'),
    '^@mrp/events/receiver$': path.join(__dirname, 'libs/events/src/receiver.ts'),
    // Each lib's types-only contracts entry and its spec set-up (testing/).
    '^@mrp/([a-z-]+)/contracts$': path.join(__dirname, 'libs/$1/src/contracts.ts'),
    '^@mrp/([a-z-]+)/testing$': path.join(__dirname, 'libs/$1/testing/index.ts'),
    '^@mrp/([a-z-]+)$': path.join(__dirname, 'libs/$1/src/index.ts'),
  },
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
  clearMocks: true,
  // Suites set up real databases and processes; on a loaded two-core machine a migration run alone
  // can pass Jest's default of 5 s. A test that waits for something still names its own deadline.
  testTimeout: 30_000,
};
