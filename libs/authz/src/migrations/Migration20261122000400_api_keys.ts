import { Migration } from '@mikro-orm/migrations';

/** API keys: only the SHA-256 of a token is stored, never the token. */
export class Migration20261122000400_api_keys extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        owner_user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
        token_hash text NOT NULL UNIQUE CHECK (token_hash ~ '^[0-9a-f]{64}$'),
        prefix text NOT NULL,
        full_access boolean NOT NULL,
        permissions text[] NOT NULL DEFAULT '{}',
        expires_at timestamptz,
        revoked_at timestamptz,
        last_used_at timestamptz,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        -- A limited key with an empty allowlist could do nothing; a full key ignores the list.
        CHECK (full_access = (cardinality(permissions) = 0))
      )`);
    // Serves "my keys in this organization, newest first" (the keys pages).
    this.addSql(`CREATE INDEX api_keys_owner ON api_keys (owner_user_id, organization_id, created_at DESC)`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP TABLE api_keys');
  }
}
