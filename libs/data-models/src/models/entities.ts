import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { FieldType } from '@mrp/field-validation';
import { INDEX_STATUSES } from './index-status';

export const DataModel = defineEntity({
  name: 'DataModel',
  tableName: 'data_models',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    key: p.text(),
    name: p.text(),
    description: p.text().nullable(),
    archivedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
export type DataModel = InferEntity<typeof DataModel>;

export const DataField = defineEntity({
  name: 'DataField',
  tableName: 'data_fields',
  properties: {
    id: p.uuid().primary(),
    modelId: p.uuid(),
    key: p.text(),
    name: p.text(),
    type: p.string().$type<FieldType>().columnType('text'),
    config: p.json<Record<string, unknown>>(),
    required: p.boolean(),
    position: p.integer(),
    indexed: p.boolean(),
    indexStatus: p.enum([...INDEX_STATUSES]).nullable(),
    indexError: p.text().nullable(),
    archivedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
export type DataField = InferEntity<typeof DataField>;
