import { setupTestDatabaseServer } from '@mrp/platform/testing';
import { platformModule } from '@mrp/platform';
import { authzModule } from '@mrp/authz';
import { notificationsModule } from '../src';

export default () => setupTestDatabaseServer([platformModule, authzModule, notificationsModule]);
