import { setupTestDatabaseServer } from '@mrp/platform/testing';
import { ALL_MODULES } from '../src';

export default () => setupTestDatabaseServer(ALL_MODULES);
