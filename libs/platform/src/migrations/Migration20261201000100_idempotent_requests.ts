import { Migration } from '@mikro-orm/migrations';

/**
 * The answers of requests sent with an Idempotency-Key, kept 24 hours per credential and key so a
 * retry is answered, not run again. A row is written in the transaction of the change it answers
 * (never before it, never after it): a request still running holds a transaction-level advisory
 * lock on its key instead of a row, so a crash leaves nothing behind to clean up.
 */
export class Migration20261201000100_idempotent_requests extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE TABLE idempotent_requests (
        credential_id text NOT NULL,
        key text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
        request_hash text NOT NULL,
        status smallint NOT NULL,
        headers jsonb NOT NULL DEFAULT '{}',
        body text,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (credential_id, key)
      )`);
    // The prune task deletes what has expired through this.
    this.addSql(`CREATE INDEX idempotent_requests_expiry ON idempotent_requests (expires_at)`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP TABLE idempotent_requests');
  }
}
