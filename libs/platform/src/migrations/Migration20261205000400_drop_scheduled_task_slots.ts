import { Migration } from '@mikro-orm/migrations';

/** Scheduled tasks run on the job queue's schedules, which keep one job per slot: slot claims are no longer made. */
export class Migration20261205000400_drop_scheduled_task_slots extends Migration {
  override async up(): Promise<void> {
    this.addSql('DROP TABLE scheduled_task_slots');
  }

  override async down(): Promise<void> {
    this.addSql(`
      CREATE TABLE scheduled_task_slots (
        task text NOT NULL,
        slot timestamptz NOT NULL,
        claimed_by text NOT NULL,
        claimed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (task, slot)
      )`);
  }
}
