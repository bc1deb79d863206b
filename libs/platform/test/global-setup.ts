import { setupTestDatabaseServer } from '../testing';
import { platformModule } from '../src';

export default () => setupTestDatabaseServer([platformModule]);
