import { Migration } from '@mikro-orm/migrations';

/**
 * A deleted person's address is released when the deletion takes effect (no longer vouched for,
 * so a new identity provider account may claim it); this releases the addresses of people
 * deleted before that rule. There is no way back: which of them were vouched for is not kept.
 */
export class Migration20261123000300_release_deleted_addresses extends Migration {
  override async up(): Promise<void> {
    this.addSql(`UPDATE users SET email_verified = false WHERE kind = 'HUMAN' AND deleted_at IS NOT NULL AND email_verified`);
  }

  override async down(): Promise<void> {
    // Nothing to undo: a released address stays released.
  }
}
