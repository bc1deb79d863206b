import { setupTestDatabaseServer } from '@mrp/platform/testing';
import { ALL_MODULES } from '@mrp/runtime';

export default () => setupTestDatabaseServer(ALL_MODULES);
