import { teardownTestDatabaseServer } from './test-database';

// Every project's jest globalTeardown: whatever modules its globalSetup migrated, stopping the server is the same.
export default () => teardownTestDatabaseServer();
