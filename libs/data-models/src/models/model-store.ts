import type { EntityManager } from '@mikro-orm/postgresql';
import { executePrepared, notFound, preparedStatement, sqlTextArray } from '@mrp/platform';
import type { FieldDefinition, FieldType } from '@mrp/field-validation';
import { visibleToRolesIn, boundRoleIds } from '../records/record-access';
import { DataField, DataModel } from './entities';
import { RECORD_COUNT_CAP } from './record-count-cap';
import type { ArchivedModelOutput, FieldOutput, ModelOutput } from './schemas';

/** A model with its fields, as record operations need it. */
export interface LoadedModel {
  model: DataModel;
  /** Every field, archived ones included (the validator reports writes to them as unknown). */
  fields: DataField[];
}

/** What record operations need of a field: ORM entities and the rows of loadRecordModel both fit. */
export interface FieldShape {
  key: string;
  type: FieldType;
  config: Record<string, unknown>;
  required: boolean;
  position: number;
  archivedAt?: Date | string | null;
}

export interface RecordModel {
  model: { id: string; key: string };
  fields: FieldShape[];
  /** `data_models.fields_version` when the fields were read (a bigint, as text). */
  fieldsVersion: string;
}

/**
 * Model and fields in one round trip: every record read and write starts here, so PostgreSQL
 * plans it once per connection (planning this join and aggregate cost as much as running it).
 */
const RECORD_MODEL = preparedStatement(
  `SELECT m.id, m.key, m.fields_version,
      COALESCE(json_agg(json_build_object('key', f.key, 'type', f.type, 'config', f.config, 'required', f.required,
        'position', f.position, 'archivedAt', f.archived_at) ORDER BY f.position, f.key) FILTER (WHERE f.id IS NOT NULL), '[]') AS fields
    FROM data_models m LEFT JOIN data_fields f ON f.model_id = m.id
    WHERE m.organization_id = $1::uuid AND m.key = $2::text AND m.archived_at IS NULL
    GROUP BY m.id`,
  { purpose: 'model and fields by key, live', indexes: ['data_models_organization_id_key_key', 'data_fields_model_id_key_key'] },
);

/** A live model by key with all its fields (archived included), for record operations. */
export async function loadRecordModel(em: EntityManager, organizationId: string, key: string): Promise<RecordModel> {
  const [row] = await executePrepared<{ id: string; key: string; fields_version: string; fields: FieldShape[] }>(em, RECORD_MODEL, [
    organizationId,
    key,
  ]);
  if (!row) throw notFound('Data model');
  return { model: { id: row.id, key: row.key }, fields: row.fields, fieldsVersion: row.fields_version };
}

export async function findLiveModel(em: EntityManager, organizationId: string, key: string): Promise<DataModel> {
  const model = await em.findOne(DataModel, { organizationId, key, archivedAt: null });
  if (!model) throw notFound('Data model');
  return model;
}

export async function loadFields(em: EntityManager, modelId: string): Promise<DataField[]> {
  return em.find(DataField, { modelId }, { orderBy: { position: 'asc', key: 'asc' } });
}

export async function loadLiveModel(em: EntityManager, organizationId: string, key: string): Promise<LoadedModel> {
  const model = await findLiveModel(em, organizationId, key);
  return { model, fields: await loadFields(em, model.id) };
}

export function isLive(field: FieldShape): boolean {
  return field.archivedAt === null || field.archivedAt === undefined;
}

export function toDefinition(field: FieldShape): FieldDefinition {
  return { key: field.key, type: field.type, config: field.config, required: field.required, archivedAt: field.archivedAt ?? null };
}

export function liveDefinitions(fields: readonly FieldShape[]): FieldDefinition[] {
  return fields.filter(isLive).map(toDefinition);
}

export function definitionMap(fields: readonly FieldShape[]): Map<string, FieldDefinition> {
  return new Map(liveDefinitions(fields).map((definition) => [definition.key, definition]));
}

export function modelOutput(model: DataModel): ModelOutput {
  return {
    key: model.key,
    name: model.name,
    description: model.description ?? null,
    createdAt: model.createdAt.toISOString(),
    updatedAt: model.updatedAt.toISOString(),
  };
}

export function archivedModelOutput(model: DataModel): ArchivedModelOutput {
  return { key: model.key, archivedAt: (model.archivedAt ?? new Date()).toISOString() };
}

export function fieldOutput(field: DataField): FieldOutput {
  return {
    key: field.key,
    name: field.name,
    type: field.type,
    config: field.config,
    required: field.required,
    position: field.position,
    indexed: field.indexed,
    indexStatus: field.indexStatus ?? null,
    indexError: field.indexError ?? null,
    archivedAt: field.archivedAt ? field.archivedAt.toISOString() : null,
  };
}


/**
 * How many live records of each model the caller may see, by model id, each counted only up to
 * one past RECORD_COUNT_CAP through the model's live-records index, so a model of a million rows
 * costs what one of ten thousand does. The row-level access condition is every record list's, so a
 * count never reveals a hidden record.
 */
export async function visibleRecordCounts(em: EntityManager, organizationId: string, modelIds: readonly string[], roleIds: readonly string[]): Promise<Map<string, number>> {
  if (modelIds.length === 0) return new Map();
  const rows = await em.execute<Array<{ model_id: string; count: number }>>(
    `SELECT m.id AS model_id, c.count FROM unnest(?::uuid[]) AS m(id)
       CROSS JOIN LATERAL (
         SELECT count(*)::int AS count FROM (
           SELECT 1 FROM records r
            WHERE r.organization_id = ? AND r.model_id = m.id AND r.deleted_at IS NULL AND ${visibleToRolesIn('?::uuid[]')}
            LIMIT ?) capped) c`,
    [sqlTextArray(modelIds), organizationId, sqlTextArray(boundRoleIds(roleIds)), RECORD_COUNT_CAP + 1],
  );
  return new Map(rows.map((row) => [row.model_id, row.count]));
}
