import { Migration } from '@mikro-orm/migrations';

/**
 * Calendar reminders of DATETIME fields (`config.reminders`). A reminder is sent once per record,
 * field, offset and value: the task claims it by inserting its key here in the transaction that
 * writes the notification, so a second run (another process) finds it taken. A changed value is a
 * new key, hence a new reminder. Marks go with their record when it is purged.
 */
export class Migration20261125002000_record_reminders extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE TABLE record_reminders_sent (
        record_id uuid NOT NULL REFERENCES records (id) ON DELETE CASCADE,
        field_key text NOT NULL,
        offset_minutes integer NOT NULL CHECK (offset_minutes >= 0),
        due_value timestamptz NOT NULL,
        remind_at timestamptz NOT NULL,
        sent_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (record_id, field_key, offset_minutes, due_value)
      )`);
    // Marks whose reminder time is long past can never match again; the task prunes them through this.
    this.addSql(`CREATE INDEX record_reminders_sent_remind_at ON record_reminders_sent (remind_at)`);
    // The task starts every run by listing the fields that carry reminders, among all fields of all organizations.
    this.addSql(`
      CREATE INDEX data_fields_with_reminders ON data_fields (model_id)
      WHERE type = 'DATETIME' AND archived_at IS NULL AND (config -> 'reminders') IS NOT NULL`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP INDEX data_fields_with_reminders');
    this.addSql('DROP TABLE record_reminders_sent');
  }
}
