import { Migration } from '@mikro-orm/migrations';

/**
 * A record's version: 1 when created, one more with every write to the row (in the writing
 * statement itself). The public API sends it as the record's entity tag, and a write that names
 * the version it was based on (If-Match, `expectedVersion`) checks it in its own UPDATE or DELETE,
 * so two writers based on one version cannot both succeed. A constant default: no table rewrite.
 */
export class Migration20261201000200_record_version extends Migration {
  override async up(): Promise<void> {
    this.addSql('ALTER TABLE records ADD COLUMN version integer NOT NULL DEFAULT 1');
  }

  override async down(): Promise<void> {
    this.addSql('ALTER TABLE records DROP COLUMN version');
  }
}
