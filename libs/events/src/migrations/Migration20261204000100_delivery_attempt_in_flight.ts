import { Migration } from '@mikro-orm/migrations';

/**
 * The attempt a worker claimed a delivery for and has not recorded yet (its number, and when it
 * was claimed): a worker that dies after sending, or cannot record the outcome, leaves it set, and
 * the next claim records it as an attempt of unknown outcome before making its own, so the log
 * keeps every send and `Webhook-Attempt` never repeats.
 */
export class Migration20261204000100_delivery_attempt_in_flight extends Migration {
  override async up(): Promise<void> {
    this.addSql('ALTER TABLE webhook_deliveries ADD COLUMN attempt_in_flight integer, ADD COLUMN attempt_in_flight_at timestamptz');
  }

  override async down(): Promise<void> {
    this.addSql('ALTER TABLE webhook_deliveries DROP COLUMN attempt_in_flight, DROP COLUMN attempt_in_flight_at');
  }
}
