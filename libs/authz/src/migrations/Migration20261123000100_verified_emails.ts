import { Migration } from '@mikro-orm/migrations';

/**
 * An address belongs to an account only once the identity provider vouches for it
 * (`email_verified` not false): only such addresses are unique, so an unverified claim can never
 * occupy a real person's address and lock them out. Service accounts' generated addresses count
 * as vouched for. Humans stored before this change are vouched for again by their next session.
 */
export class Migration20261123000100_verified_emails extends Migration {
  override async up(): Promise<void> {
    this.addSql('ALTER TABLE users ADD COLUMN email_verified boolean NOT NULL DEFAULT false');
    this.addSql(`UPDATE users SET email_verified = true WHERE kind = 'SERVICE'`);
    this.addSql('DROP INDEX users_email_unique');
    this.addSql('CREATE UNIQUE INDEX users_verified_email_unique ON users (lower(email)) WHERE email_verified');
  }

  override async down(): Promise<void> {
    this.addSql('DROP INDEX users_verified_email_unique');
    this.addSql('CREATE UNIQUE INDEX users_email_unique ON users (lower(email))');
    this.addSql('ALTER TABLE users DROP COLUMN email_verified');
  }
}
