import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000400_data_models } from './Migration20261122000400_data_models';
import { Migration20261122000430_model_fields_version } from './Migration20261122000430_model_fields_version';

export const dataModelsMigrations: MigrationObject[] = [
  { name: 'Migration20261122000400_data_models', class: Migration20261122000400_data_models },
  { name: 'Migration20261122000430_model_fields_version', class: Migration20261122000430_model_fields_version },
];
