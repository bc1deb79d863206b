import { Migration } from '@mikro-orm/migrations';

/**
 * Marks each model that has ever had a restricted record (a record_access row), so reads of
 * related titles (`expand`) skip the row-level check for models where it cannot hide anything.
 * The mark is set by the statement that restricts a record, in its transaction, so any snapshot
 * that sees the access rows sees the mark; it is never cleared (a model once restricted is checked
 * row by row from then on).
 */
export class Migration20261209000100_models_with_restricted_records extends Migration {
  override async up(): Promise<void> {
    this.addSql('ALTER TABLE data_models ADD COLUMN has_restricted_records boolean NOT NULL DEFAULT false');
    this.addSql(`
      CREATE FUNCTION data_models_mark_restricted_records() RETURNS trigger
      LANGUAGE plpgsql AS $fn$
      BEGIN
        UPDATE data_models m SET has_restricted_records = true
        WHERE NOT m.has_restricted_records AND m.id IN (SELECT r.model_id FROM restricted JOIN records r ON r.id = restricted.record_id);
        RETURN NULL;
      END
      $fn$`);
    this.addSql(`
      CREATE TRIGGER record_access_marks_model AFTER INSERT ON record_access
      REFERENCING NEW TABLE AS restricted FOR EACH STATEMENT EXECUTE FUNCTION data_models_mark_restricted_records()`);
    this.addSql(`
      UPDATE data_models m SET has_restricted_records = true
      WHERE EXISTS (SELECT 1 FROM record_access ra JOIN records r ON r.id = ra.record_id WHERE r.model_id = m.id)`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP TRIGGER record_access_marks_model ON record_access');
    this.addSql('DROP FUNCTION data_models_mark_restricted_records()');
    this.addSql('ALTER TABLE data_models DROP COLUMN has_restricted_records');
  }
}
