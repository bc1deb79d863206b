import { Migration } from '@mikro-orm/migrations';

/** The account-deletion task scans only accounts waiting for deletion, never the whole users table. */
export class Migration20261122000210_account_deletion_due extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `CREATE INDEX users_deletion_due ON users (deletion_scheduled_for)
        WHERE deletion_scheduled_for IS NOT NULL AND deleted_at IS NULL`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('DROP INDEX users_deletion_due');
  }
}
