import { setupTestDatabaseServer } from '@mrp/platform/testing';
import { platformModule } from '@mrp/platform';
import { authzModule } from '../src';

export default () => setupTestDatabaseServer([platformModule, authzModule]);
