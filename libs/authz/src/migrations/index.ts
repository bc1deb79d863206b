import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000200_identity } from './Migration20261122000200_identity';
import { Migration20261122000210_account_deletion_due } from './Migration20261122000210_account_deletion_due';
import { Migration20261122000400_api_keys } from './Migration20261122000400_api_keys';
import { Migration20261122000410_rate_limit_buckets } from './Migration20261122000410_rate_limit_buckets';
import { Migration20261123000100_verified_emails } from './Migration20261123000100_verified_emails';
import { Migration20261123000300_release_deleted_addresses } from './Migration20261123000300_release_deleted_addresses';
import { Migration20261126000300_organization_access_version } from './Migration20261126000300_organization_access_version';

export const authzMigrations: MigrationObject[] = [
  { name: 'Migration20261122000200_identity', class: Migration20261122000200_identity },
  { name: 'Migration20261122000210_account_deletion_due', class: Migration20261122000210_account_deletion_due },
  { name: 'Migration20261122000400_api_keys', class: Migration20261122000400_api_keys },
  { name: 'Migration20261122000410_rate_limit_buckets', class: Migration20261122000410_rate_limit_buckets },
  { name: 'Migration20261123000100_verified_emails', class: Migration20261123000100_verified_emails },
  { name: 'Migration20261123000300_release_deleted_addresses', class: Migration20261123000300_release_deleted_addresses },
  { name: 'Migration20261126000300_organization_access_version', class: Migration20261126000300_organization_access_version },
];
