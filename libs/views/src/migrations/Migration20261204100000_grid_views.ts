import { Migration } from '@mikro-orm/migrations';

/**
 * Saved views of a model's records grid (docs/views.md): a name and the grid's state (search,
 * filter, sort, page size, columns) as the console keeps it in the address. A view is its
 * creator's own, or shared with the whole organization.
 */
export class Migration20261204100000_grid_views extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE TABLE grid_views (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        model_key text NOT NULL,
        name text NOT NULL,
        state jsonb NOT NULL,
        shared boolean NOT NULL,
        -- A personal view's owner; for a shared one, who shared it last.
        created_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    this.addSql('CREATE INDEX grid_views_model ON grid_views (organization_id, model_key)');
  }

  override async down(): Promise<void> {
    this.addSql('DROP TABLE grid_views');
  }
}
