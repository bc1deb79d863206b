import { Migration } from '@mikro-orm/migrations';
import type { PlatformModule } from '@mrp/platform';

class MigrationOrganizationsStandIn extends Migration {
  override async up(): Promise<void> {
    this.addSql('CREATE TABLE organizations (id uuid PRIMARY KEY, name text NOT NULL)');
  }

  override async down(): Promise<void> {
    this.addSql('DROP TABLE organizations');
  }
}

/**
 * The one authz table the events migrations reference (webhook endpoints belong to organizations),
 * for this lib's tests: events may not import authz, so its tests stand in for it under its name,
 * which satisfies `requiresTablesOf: ['authz']`. Tests insert the organizations they need.
 */
export const authzStandIn: PlatformModule = {
  name: 'authz',
  entities: [],
  migrations: [{ name: 'MigrationOrganizationsStandIn', class: MigrationOrganizationsStandIn }],
};
