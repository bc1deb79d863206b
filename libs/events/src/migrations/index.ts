import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261124000100_webhooks } from './Migration20261124000100_webhooks';
import { Migration20261126000100_webhook_route_changes } from './Migration20261126000100_webhook_route_changes';
import { Migration20261126000400_deliveries_without_endpoint_lock } from './Migration20261126000400_deliveries_without_endpoint_lock';
import { Migration20261126000500_delivery_idempotency_key_unindexed } from './Migration20261126000500_delivery_idempotency_key_unindexed';
import { Migration20261202002000_webhook_principals } from './Migration20261202002000_webhook_principals';
import { Migration20261204000100_delivery_attempt_in_flight } from './Migration20261204000100_delivery_attempt_in_flight';
import { Migration20261204000200_endpoint_signing } from './Migration20261204000200_endpoint_signing';
import { Migration20261204000300_endpoint_failure_notices } from './Migration20261204000300_endpoint_failure_notices';
import { Migration20261206001000_webhook_event_bodies } from './Migration20261206001000_webhook_event_bodies';
import { Migration20261206001100_webhook_delivery_order } from './Migration20261206001100_webhook_delivery_order';
import { Migration20261206001200_due_deliveries_numbered } from './Migration20261206001200_due_deliveries_numbered';
import { Migration20261207000100_webhook_delivery_jobs } from './Migration20261207000100_webhook_delivery_jobs';
import { Migration20261208000200_endpoint_route_change_shared } from './Migration20261208000200_endpoint_route_change_shared';

export const eventsMigrations: MigrationObject[] = [
  { name: 'Migration20261124000100_webhooks', class: Migration20261124000100_webhooks },
  { name: 'Migration20261126000100_webhook_route_changes', class: Migration20261126000100_webhook_route_changes },
  { name: 'Migration20261126000400_deliveries_without_endpoint_lock', class: Migration20261126000400_deliveries_without_endpoint_lock },
  { name: 'Migration20261126000500_delivery_idempotency_key_unindexed', class: Migration20261126000500_delivery_idempotency_key_unindexed },
  { name: 'Migration20261202002000_webhook_principals', class: Migration20261202002000_webhook_principals },
  { name: 'Migration20261204000100_delivery_attempt_in_flight', class: Migration20261204000100_delivery_attempt_in_flight },
  { name: 'Migration20261204000200_endpoint_signing', class: Migration20261204000200_endpoint_signing },
  { name: 'Migration20261204000300_endpoint_failure_notices', class: Migration20261204000300_endpoint_failure_notices },
  { name: 'Migration20261206001000_webhook_event_bodies', class: Migration20261206001000_webhook_event_bodies },
  { name: 'Migration20261206001100_webhook_delivery_order', class: Migration20261206001100_webhook_delivery_order },
  { name: 'Migration20261206001200_due_deliveries_numbered', class: Migration20261206001200_due_deliveries_numbered },
  { name: 'Migration20261207000100_webhook_delivery_jobs', class: Migration20261207000100_webhook_delivery_jobs },
  { name: 'Migration20261208000200_endpoint_route_change_shared', class: Migration20261208000200_endpoint_route_change_shared },
];
