import { Migration } from '@mikro-orm/migrations';

/**
 * Token buckets of the public API's rate limiter, shared by every api process. UNLOGGED: no WAL
 * for a write on every request; after a crash the table is empty, which only refills buckets.
 */
export class Migration20261122000410_rate_limit_buckets extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE UNLOGGED TABLE rate_limit_buckets (
        bucket_key text PRIMARY KEY,
        tokens double precision NOT NULL CHECK (tokens >= 0),
        updated_at timestamptz NOT NULL,
        -- Outcome of the latest take: RETURNING sees only the new row, not the old tokens.
        admitted boolean NOT NULL
      ) WITH (fillfactor = 70)`);
    // No index on updated_at on purpose: with only the primary key indexed and room left on each
    // page (fillfactor), every take is a HOT update. The rare idle sweep can afford a scan.
  }

  override async down(): Promise<void> {
    this.addSql('DROP TABLE rate_limit_buckets');
  }
}
