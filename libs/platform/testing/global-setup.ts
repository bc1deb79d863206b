import { setupTestDatabaseServer } from './test-database';
import { platformModule } from '../src';

export default () => setupTestDatabaseServer([platformModule]);
