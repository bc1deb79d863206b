import { setupTestDatabaseServer } from '@mrp/platform/testing';
import { platformModule } from '@mrp/platform';
import { authzModule } from '@mrp/authz';
import { automationsModule } from '../src';

export default () => setupTestDatabaseServer([platformModule, authzModule, automationsModule]);
