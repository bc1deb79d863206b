import { teardownTestDatabaseServer } from '@mrp/platform/testing';

export default () => teardownTestDatabaseServer();
