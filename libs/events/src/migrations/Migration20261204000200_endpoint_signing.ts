import { Migration } from '@mikro-orm/migrations';

/** An endpoint's signing scheme: the contract's (`v1=<hex>` over `timestamp.body`), or Standard Webhooks. */
export class Migration20261204000200_endpoint_signing extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `ALTER TABLE webhook_endpoints ADD COLUMN signing text NOT NULL DEFAULT 'contract' CHECK (signing IN ('contract', 'standard-webhooks'))`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('ALTER TABLE webhook_endpoints DROP COLUMN signing');
  }
}
