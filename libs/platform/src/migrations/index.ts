import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000100_feature_flags } from './Migration20261122000100_feature_flags';
import { Migration20261122000500_job_queue } from './Migration20261122000500_job_queue';
import { Migration20261205000100_job_queue_timekeeping } from './Migration20261205000100_job_queue_timekeeping';
import { Migration20261125005000_scheduled_task_slots } from './Migration20261125005000_scheduled_task_slots';
import { Migration20261201000100_idempotent_requests } from './Migration20261201000100_idempotent_requests';
import { Migration20261205000400_drop_scheduled_task_slots } from './Migration20261205000400_drop_scheduled_task_slots';
import { Migration20261208000100_event_route_change_function } from './Migration20261208000100_event_route_change_function';

export const platformMigrations: MigrationObject[] = [
  { name: 'Migration20261122000100_feature_flags', class: Migration20261122000100_feature_flags },
  { name: 'Migration20261122000500_job_queue', class: Migration20261122000500_job_queue },
  { name: 'Migration20261125005000_scheduled_task_slots', class: Migration20261125005000_scheduled_task_slots },
  { name: 'Migration20261201000100_idempotent_requests', class: Migration20261201000100_idempotent_requests },
  { name: 'Migration20261205000100_job_queue_timekeeping', class: Migration20261205000100_job_queue_timekeeping },
  { name: 'Migration20261205000400_drop_scheduled_task_slots', class: Migration20261205000400_drop_scheduled_task_slots },
  { name: 'Migration20261208000100_event_route_change_function', class: Migration20261208000100_event_route_change_function },
];
