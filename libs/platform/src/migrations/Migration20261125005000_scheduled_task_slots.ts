import { Migration } from '@mikro-orm/migrations';

export class Migration20261125005000_scheduled_task_slots extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE TABLE scheduled_task_slots (
        task text NOT NULL,
        slot timestamptz NOT NULL,
        claimed_by text NOT NULL,
        claimed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (task, slot)
      )`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP TABLE scheduled_task_slots');
  }
}
