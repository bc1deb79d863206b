import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261125000100_automations } from './Migration20261125000100_automations';
import { Migration20261126000200_automation_route_changes } from './Migration20261126000200_automation_route_changes';
import { Migration20261202001100_automation_run_bounds } from './Migration20261202001100_automation_run_bounds';
import { Migration20261207000200_automation_run_jobs } from './Migration20261207000200_automation_run_jobs';
import { Migration20261208000300_automation_route_change_shared } from './Migration20261208000300_automation_route_change_shared';

export const automationsMigrations: MigrationObject[] = [
  { name: 'Migration20261125000100_automations', class: Migration20261125000100_automations },
  { name: 'Migration20261126000200_automation_route_changes', class: Migration20261126000200_automation_route_changes },
  { name: 'Migration20261202001100_automation_run_bounds', class: Migration20261202001100_automation_run_bounds },
  { name: 'Migration20261207000200_automation_run_jobs', class: Migration20261207000200_automation_run_jobs },
  { name: 'Migration20261208000300_automation_route_change_shared', class: Migration20261208000300_automation_route_change_shared },
];
