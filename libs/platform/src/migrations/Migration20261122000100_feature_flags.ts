import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000100_feature_flags extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE TABLE feature_flags (
        key text PRIMARY KEY,
        enabled boolean NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        updated_by text
      )`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP TABLE feature_flags');
  }
}
