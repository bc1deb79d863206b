import { Migration } from '@mikro-orm/migrations';

/**
 * Search (`q`) and the trash listing.
 *
 * pg_trgm is a trusted extension (PostgreSQL 13+): the owner of the database may create it without
 * being a superuser, and every PostgreSQL build we run on ships it. Its trigram GIN index answers
 * `title ILIKE '%text%'` (any case, any position) without reading every title of the model; it is
 * partial on live records, like every index of the listing, so the planner can match it.
 *
 * `deleted_by` names who soft-deleted a record; rows deleted before it existed keep null.
 */
export class Migration20261203001000_record_search_and_trash extends Migration {
  override async up(): Promise<void> {
    this.addSql('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    this.addSql('CREATE INDEX records_live_title_trigrams ON records USING gin (title gin_trgm_ops) WHERE deleted_at IS NULL');
    this.addSql('ALTER TABLE records ADD COLUMN deleted_by text');
  }

  override async down(): Promise<void> {
    this.addSql('ALTER TABLE records DROP COLUMN deleted_by');
    this.addSql('DROP INDEX records_live_title_trigrams');
    // The extension stays: other tables of the database may have come to use it.
  }
}
