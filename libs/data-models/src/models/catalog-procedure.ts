import { DataModelsCatalogInput } from './model-inputs';
import { createHash } from 'node:crypto';
import { defineProcedure } from '@mrp/platform';
import { runSql, sql } from '../query/sql';
import { ModelCatalogSchema, type ModelCatalog } from './schemas';

export { ModelCatalogSchema, type ModelCatalog };

interface CatalogRow {
  key: string;
  name: string;
  description: string | null;
  fields_version: string;
  updated_at: string;
  fields: ModelCatalog['models'][number]['fields'];
}

/**
 * Every live model of the organization with its live fields, in one round trip, for whoever
 * describes them all at once (the typed OpenAPI document). `version` is made of each model's
 * `fields_version` (bumped by a trigger on any field change) and `updated_at` (name, description,
 * archiving), so a cache keyed by it can never serve a stale description.
 */
export const modelCatalogProcedure = defineProcedure({
  name: 'dataModels.catalog',
  summary: "Describes every live Data Model of the organization with its fields, and the catalog's version",
  scope: 'organization',
  permission: 'data-models.read',
  readOnly: true,
  input: DataModelsCatalogInput,
  output: ModelCatalogSchema,
  async handler(ctx): Promise<ModelCatalog> {
    const rows = await runSql<CatalogRow>(
      ctx.em,
      sql`SELECT m.key, m.name, m.description, m.fields_version::text AS fields_version,
            to_char(m.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS updated_at,
            COALESCE(json_agg(json_build_object('key', f.key, 'name', f.name, 'type', f.type, 'config', f.config,
              'required', f.required, 'position', f.position) ORDER BY f.position, f.key) FILTER (WHERE f.id IS NOT NULL), '[]') AS fields
          FROM data_models m LEFT JOIN data_fields f ON f.model_id = m.id AND f.archived_at IS NULL
          WHERE m.organization_id = ${ctx.organizationId}::uuid AND m.archived_at IS NULL
          GROUP BY m.id
          ORDER BY m.key`,
    );
    return {
      version: createHash('sha256')
        .update(rows.map((row) => `${row.key}:${row.fields_version}:${row.updated_at}`).join(','))
        .digest('base64url'),
      models: rows.map(({ key, name, description, fields }) => ({ key, name, description, fields })),
    };
  },
});
