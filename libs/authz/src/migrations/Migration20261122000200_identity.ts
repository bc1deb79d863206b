import { Migration } from '@mikro-orm/migrations';

/** Organizations, users (humans and service accounts), memberships, roles, grants and invites. */
export class Migration20261122000200_identity extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE TABLE organizations (
        id uuid PRIMARY KEY,
        name text NOT NULL,
        slug text NOT NULL UNIQUE,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    this.addSql(`
      CREATE TABLE users (
        id text PRIMARY KEY,
        email text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('HUMAN', 'SERVICE')),
        display_name text NOT NULL,
        description text,
        created_by text,
        disabled_at timestamptz,
        deleted_at timestamptz,
        deletion_scheduled_for timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((kind = 'SERVICE') = (id LIKE 'svc\\_%'))
      )`);
    this.addSql(`CREATE UNIQUE INDEX users_email_unique ON users (lower(email))`);
    this.addSql(`
      CREATE TABLE memberships (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        joined_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (organization_id, user_id)
      )`);
    this.addSql(`CREATE INDEX memberships_user ON memberships (user_id)`);
    this.addSql(`
      CREATE TABLE roles (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        key text NOT NULL,
        name text NOT NULL,
        description text NOT NULL DEFAULT '',
        permissions text[] NOT NULL DEFAULT '{}',
        built_in boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (organization_id, key)
      )`);
    this.addSql(`
      CREATE TABLE role_grants (
        id uuid PRIMARY KEY,
        membership_id uuid NOT NULL REFERENCES memberships (id) ON DELETE CASCADE,
        role_id uuid NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
        granted_by text NOT NULL,
        granted_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (membership_id, role_id)
      )`);
    this.addSql(`CREATE INDEX role_grants_role ON role_grants (role_id)`);
    this.addSql(`
      CREATE TABLE invites (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        email text NOT NULL,
        role_ids uuid[] NOT NULL,
        token_hash text NOT NULL UNIQUE,
        invited_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        accepted_at timestamptz,
        accepted_by text
      )`);
    this.addSql(`CREATE INDEX invites_organization ON invites (organization_id)`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP TABLE invites, role_grants, roles, memberships, users, organizations');
  }
}
