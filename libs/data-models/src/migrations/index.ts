import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000400_data_models } from './Migration20261122000400_data_models';
import { Migration20261122000430_model_fields_version } from './Migration20261122000430_model_fields_version';
import { Migration20261125002000_record_reminders } from './Migration20261125002000_record_reminders';
import { Migration20261201000200_record_version } from './Migration20261201000200_record_version';
import { Migration20261203001000_record_search_and_trash } from './Migration20261203001000_record_search_and_trash';
import { Migration20261206000100_record_export_text } from './Migration20261206000100_record_export_text';
import { Migration20261209000100_models_with_restricted_records } from './Migration20261209000100_models_with_restricted_records';

export const dataModelsMigrations: MigrationObject[] = [
  { name: 'Migration20261122000400_data_models', class: Migration20261122000400_data_models },
  { name: 'Migration20261122000430_model_fields_version', class: Migration20261122000430_model_fields_version },
  { name: 'Migration20261125002000_record_reminders', class: Migration20261125002000_record_reminders },
  { name: 'Migration20261201000200_record_version', class: Migration20261201000200_record_version },
  { name: 'Migration20261203001000_record_search_and_trash', class: Migration20261203001000_record_search_and_trash },
  { name: 'Migration20261206000100_record_export_text', class: Migration20261206000100_record_export_text },
  { name: 'Migration20261209000100_models_with_restricted_records', class: Migration20261209000100_models_with_restricted_records },
];
