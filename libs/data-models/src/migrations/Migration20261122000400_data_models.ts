import { Migration } from '@mikro-orm/migrations';

/**
 * Data Models: model and field definitions, the one `records` table every model shares, and
 * record-level role access. Every index leads with `organization_id` (tenancy comes first in
 * every query) and the list indexes are partial on live rows, the only rows lists ever read.
 */
export class Migration20261122000400_data_models extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE TABLE data_models (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        key text NOT NULL,
        name text NOT NULL,
        description text,
        archived_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (organization_id, key)
      )`);
    this.addSql(`
      CREATE TABLE data_fields (
        id uuid PRIMARY KEY,
        model_id uuid NOT NULL REFERENCES data_models (id) ON DELETE CASCADE,
        key text NOT NULL,
        name text NOT NULL,
        type text NOT NULL CHECK (type IN ('TEXT', 'LONG_TEXT', 'RICH_TEXT', 'NUMBER', 'BOOLEAN', 'DATE', 'DATETIME',
          'SELECT', 'MULTI_SELECT', 'RELATION', 'URL', 'EMAIL', 'FORMULA', 'FILE', 'ATTACHMENTS')),
        config jsonb NOT NULL DEFAULT '{}',
        required boolean NOT NULL DEFAULT false,
        position integer NOT NULL DEFAULT 0,
        indexed boolean NOT NULL DEFAULT false,
        index_status text CHECK (index_status IN ('pending', 'ready', 'failed', 'dropping')),
        index_error text,
        archived_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (model_id, key)
      )`);
    // The index task finds unfinished index work without scanning every field.
    this.addSql(`CREATE INDEX data_fields_index_work ON data_fields (index_status) WHERE index_status IN ('pending', 'dropping')`);

    // Record timestamps keep milliseconds, the precision the API shows, so `createdAt gt <a shown createdAt>`
    // excludes that very record.
    this.addSql(`
      CREATE TABLE records (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        model_id uuid NOT NULL REFERENCES data_models (id) ON DELETE CASCADE,
        title text NOT NULL,
        data jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
        updated_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
        created_by text NOT NULL,
        updated_by text NOT NULL,
        deleted_at timestamptz
      )`);
    // Default list order (-createdAt) and keyset pages of it: one index range scan per page.
    this.addSql(`
      CREATE INDEX records_live_by_created ON records (organization_id, model_id, created_at DESC, id DESC)
      WHERE deleted_at IS NULL`);
    // sort=updatedAt / -updatedAt and "changed since" filters.
    this.addSql(`
      CREATE INDEX records_live_by_updated ON records (organization_id, model_id, updated_at DESC, id DESC)
      WHERE deleted_at IS NULL`);
    // sort=title and title eq/in filters. Titles may be 1000 characters (4000 bytes), more than a btree
    // entry may hold, so the index keeps a 200-character prefix and queries sort by prefix, then full title.
    this.addSql(`
      CREATE INDEX records_live_by_title ON records (organization_id, model_id, left(title, 200), id)
      WHERE deleted_at IS NULL`);
    // The trash: soft-deleted rows of a model, for restore and purge sweeps.
    this.addSql(`
      CREATE INDEX records_deleted ON records (organization_id, model_id, deleted_at)
      WHERE deleted_at IS NOT NULL`);
    // Cascading deletes of a model reach its records through this.
    this.addSql(`CREATE INDEX records_model ON records (model_id)`);

    this.addSql(`
      CREATE TABLE record_access (
        record_id uuid NOT NULL REFERENCES records (id) ON DELETE CASCADE,
        role_id uuid NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
        PRIMARY KEY (record_id, role_id)
      )`);
    this.addSql(`CREATE INDEX record_access_role ON record_access (role_id)`);

    // Index expressions must be IMMUTABLE, and text -> timestamptz/date casts are only STABLE (they
    // read DateStyle/TimeZone). Stored DATETIME values are always ISO 8601 UTC with "Z" and DATE
    // values always YYYY-MM-DD, formats no setting changes, so these wrappers are immutable in fact.
    this.addSql(`
      CREATE FUNCTION data_models_timestamptz(value text) RETURNS timestamptz
      LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
      AS $$ SELECT value::timestamptz $$`);
    this.addSql(`
      CREATE FUNCTION data_models_date(value text) RETURNS date
      LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
      AS $$ SELECT value::date $$`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP TABLE record_access, records, data_fields, data_models');
    this.addSql('DROP FUNCTION data_models_timestamptz(text), data_models_date(text)');
  }
}
