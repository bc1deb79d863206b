export {
  setupTestDatabaseServer,
  teardownTestDatabaseServer,
  createTestDatabase,
  createEmptyTestDatabase,
  createTestOrm,
  databaseUrl,
  type TestDatabase,
  type TestOrm,
} from './test-database';
export { flagsAllOff, silentLogger, testPrincipal } from './fixtures';
export { startAppProcess, startScriptProcess, type AppProcess } from './app-process';
export { RecordingEventDispatcher } from './recording-dispatcher';
export { sentStatements, statementsOf } from './statements';
export { definedPreparedStatements, genericPlanReads, type PlanReads } from './generic-plans';
export { capturedLogger } from './captured-logger';
