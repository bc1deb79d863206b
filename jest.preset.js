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
    '^@mrp/platform/testing$': path.join(__dirname, 'libs/platform/testing/index.ts'),
    '^@mrp/platform/deploy$': path.join(__dirname, 'libs/platform/deploy/index.ts'),
    '^@mrp/platform/dev$': path.join(__dirname, 'libs/platform/dev/index.ts'),
    '^@mrp/events/receiver$': path.join(__dirname, 'libs/events/src/receiver.ts'),
    '^@mrp/data-models/contracts$': path.join(__dirname, 'libs/data-models/src/contracts.ts'),
    '^@mrp/authz/contracts$': path.join(__dirname, 'libs/authz/src/contracts.ts'),
    '^@mrp/([a-z-]+)$': path.join(__dirname, 'libs/$1/src/index.ts'),
  },
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
  clearMocks: true,
  // Suites set up real databases and processes; on a loaded two-core machine a migration run alone
  // can pass Jest's default of 5 s. A test that waits for something still names its own deadline.
  testTimeout: 30_000,
};
