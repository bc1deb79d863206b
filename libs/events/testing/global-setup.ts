import { setupTestDatabaseServer } from '@mrp/platform/testing';
import { platformModule } from '@mrp/platform';
import { eventsModule } from '../src';

export default () => setupTestDatabaseServer([platformModule, eventsModule]);
