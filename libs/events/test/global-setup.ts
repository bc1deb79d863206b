import { setupTestDatabaseServer } from '@mrp/platform/testing';
import { platformModule } from '@mrp/platform';
import { eventsModule } from '../src';
import { authzStandIn } from './organizations-stand-in';

export default () => setupTestDatabaseServer([platformModule, authzStandIn, eventsModule]);
