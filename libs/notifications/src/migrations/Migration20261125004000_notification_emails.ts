import { Migration } from '@mikro-orm/migrations';

/** The email of a notification, when SMTP is configured: one row per notification, with its sending state. */
export class Migration20261125004000_notification_emails extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE TABLE notification_emails (
        notification_id uuid PRIMARY KEY REFERENCES notifications (id) ON DELETE CASCADE,
        user_id text NOT NULL,
        -- Where notification.delivery-failed is routed besides the recipient (null: platform notices).
        organization_id uuid,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        last_error text,
        sent_at timestamptz
      )`);
    // The task's claim scans only what waits to be sent, oldest due first.
    this.addSql(`CREATE INDEX notification_emails_due ON notification_emails (next_attempt_at) WHERE status = 'pending'`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP TABLE notification_emails');
  }
}
