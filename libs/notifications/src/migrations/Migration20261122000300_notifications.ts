import { Migration } from '@mikro-orm/migrations';

/** In-app notifications, one row per recipient. */
export class Migration20261122000300_notifications extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE TABLE notifications (
        id uuid PRIMARY KEY,
        user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        kind text NOT NULL,
        title text NOT NULL,
        body text,
        data jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        read_at timestamptz
      )`);
    // Ids are UUIDv7 (time-ordered): a user's list is a keyset scan on (user_id, id DESC), newest first.
    this.addSql('CREATE INDEX notifications_user ON notifications (user_id, id DESC)');
    // The unread list and the unread badge count touch only unread rows.
    this.addSql('CREATE INDEX notifications_user_unread ON notifications (user_id, id DESC) WHERE read_at IS NULL');
  }

  override async down(): Promise<void> {
    this.addSql('DROP TABLE notifications');
  }
}
