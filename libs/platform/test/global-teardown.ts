import { teardownTestDatabaseServer } from '../testing';

export default () => teardownTestDatabaseServer();
