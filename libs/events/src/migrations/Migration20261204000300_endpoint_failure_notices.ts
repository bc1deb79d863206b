import { Migration } from '@mikro-orm/migrations';

/**
 * Deliveries that fail for good are announced to the platform's operators once per endpoint per
 * hour: when the last notice went out, and how many failures came since without one.
 */
export class Migration20261204000300_endpoint_failure_notices extends Migration {
  override async up(): Promise<void> {
    this.addSql('ALTER TABLE webhook_endpoints ADD COLUMN failure_notice_at timestamptz, ADD COLUMN failures_unannounced integer NOT NULL DEFAULT 0');
  }

  override async down(): Promise<void> {
    this.addSql('ALTER TABLE webhook_endpoints DROP COLUMN failure_notice_at, DROP COLUMN failures_unannounced');
  }
}
