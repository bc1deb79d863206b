import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { FIELD_KEY_PATTERN, FIELD_TYPES } from '@mrp/field-validation';
import { INDEX_STATUSES } from './index-status';

/** Output shapes (DESIGN 5), exported for the OpenAPI document. */

const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC, with Z' });

export const KeySchema = Type.String({ pattern: FIELD_KEY_PATTERN.source, description: 'Immutable snake_case key' });

/** A model key as procedures take it to name an existing model: one that names none is not found, not invalid. */
export const ModelKeyInput = Type.String({ minLength: 1, maxLength: 63, description: 'The model key (lowercase letters, digits and underscores)' });

export const ModelSchema = Type.Object(
  {
    key: Type.String(),
    name: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'Model' },
);
export type ModelOutput = Static<typeof ModelSchema>;

export const FieldTypeSchema = Type.Union(FIELD_TYPES.map((type) => Type.Literal(type)));

export const FieldSchema = Type.Object(
  {
    key: Type.String(),
    name: Type.String(),
    type: FieldTypeSchema,
    config: Type.Record(Type.String(), Type.Unknown()),
    required: Type.Boolean(),
    position: Type.Integer(),
    indexed: Type.Boolean(),
    indexStatus: Type.Union([...INDEX_STATUSES.map((status) => Type.Literal(status)), Type.Null()], {
      description: 'Index build state of an indexed field: pending, ready, failed (see indexError) or dropping',
    }),
    indexError: Type.Union([Type.String(), Type.Null()]),
    archivedAt: Type.Union([Timestamp, Type.Null()]),
  },
  { title: 'Field' },
);
export type FieldOutput = Static<typeof FieldSchema>;

export const ArchivedModelSchema = Type.Object({ key: Type.String(), archivedAt: Timestamp }, { title: 'ArchivedModel' });
export type ArchivedModelOutput = Static<typeof ArchivedModelSchema>;

/**
 * `{ items, nextCursor }`, the envelope of every list; named `title`, or `<Item>List` after a named
 * item (the OpenAPI component's name).
 */
export function listEnvelope<T extends TSchema>(item: T, paged: boolean, title = typeof item.title === 'string' ? `${item.title}List` : undefined) {
  return Type.Object(
    {
      items: Type.Array(item),
      nextCursor: paged
        ? Type.Union([Type.String(), Type.Null()], { description: 'Pass it back as `cursor` for the next page; null on the last one' })
        : Type.Null({ description: 'Always null: the list is never paged' }),
    },
    title === undefined ? {} : { title },
  );
}

/** A model as `dataModels.list` gives it: with how many live records the caller may see when asked. */
export const ModelListItemSchema = Type.Object(
  {
    ...ModelSchema.properties,
    recordCount: Type.Optional(
      Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
        description: 'With recordCounts: live records of the model the caller may see (row-level access applied), at most the cap; null without records.read',
      }),
    ),
    recordCountCapped: Type.Optional(Type.Boolean({ description: 'With recordCounts: the model has more records than recordCount says (the cap)' })),
  },
  { title: 'ModelListItem' },
);
export type ModelListItemOutput = Static<typeof ModelListItemSchema>;

export const ModelListSchema = listEnvelope(ModelListItemSchema, false, 'ModelList');
export type ModelListOutput = Static<typeof ModelListSchema>;
export const FieldListSchema = listEnvelope(FieldSchema, false);
export type FieldListOutput = Static<typeof FieldListSchema>;

/** `dataModels.catalog`: every live model with its live fields. */
const CatalogFieldSchema = Type.Object({
  key: Type.String(),
  name: Type.String(),
  type: FieldTypeSchema,
  config: Type.Record(Type.String(), Type.Unknown()),
  required: Type.Boolean(),
  position: Type.Integer(),
});

export const ModelCatalogSchema = Type.Object(
  {
    version: Type.String({ description: 'Changes whenever a model or one of its fields is created, changed or archived' }),
    models: Type.Array(
      Type.Object({
        key: Type.String(),
        name: Type.String(),
        description: Type.Union([Type.String(), Type.Null()]),
        fields: Type.Array(CatalogFieldSchema, { description: 'Live fields in position order' }),
      }),
    ),
  },
  { title: 'ModelCatalog' },
);
export type ModelCatalog = Static<typeof ModelCatalogSchema>;
