import { Migration } from '@mikro-orm/migrations';

/**
 * A delivery's idempotency key is a fresh UUIDv7 (74 random bits) made with the delivery and never
 * looked up: its unique index only cost an index insertion in the transaction of every change
 * that has an endpoint to tell (decision 89).
 */
export class Migration20261126000500_delivery_idempotency_key_unindexed extends Migration {
  override async up(): Promise<void> {
    this.addSql('ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_idempotency_key_key');
  }

  override async down(): Promise<void> {
    this.addSql('ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_idempotency_key_key UNIQUE (idempotency_key)');
  }
}
