import type { PlatformModule } from '@mrp/platform';
import { DataField, DataModel } from './models/entities';
import { dataModelsMigrations } from './migrations';

/** Records and record_access are reached through hand-written SQL only (the hot path), so they map no entity. */
export const dataModelsModule: PlatformModule = {
  name: 'data-models',
  entities: [DataModel, DataField],
  migrations: dataModelsMigrations,
  requiresTablesOf: ['authz'],
};
