import { Type } from '@sinclair/typebox';
import { FieldTypeSchema, KeySchema, ModelKeyInput } from '../models/schemas';

/**
 * The input schemas of the `dataModels.fields.*` procedures. Their static types are the inputs of
 * data-models' contracts (decision 155): this file imports nothing server-side.
 */

const FieldKeyInput = Type.String({ minLength: 1, maxLength: 63 });
const NameInput = Type.String({ minLength: 1, maxLength: 200 });
const ConfigInput = Type.Record(Type.String(), Type.Unknown(), { description: 'Per-type configuration; omitted keys take defaults' });
const PositionInput = Type.Integer({ minimum: 0, maximum: 100000 });

/** `dataModels.fields.list` */
export const DataModelsFieldsListInput = Type.Object({ model: ModelKeyInput }, { additionalProperties: false });

/** `dataModels.fields.create` */
export const DataModelsFieldsCreateInput = Type.Object(
  {
    model: ModelKeyInput,
    key: KeySchema,
    name: NameInput,
    type: FieldTypeSchema,
    config: Type.Optional(ConfigInput),
    required: Type.Optional(Type.Boolean()),
    indexed: Type.Optional(Type.Boolean()),
    position: Type.Optional(PositionInput),
  },
  { additionalProperties: false },
);

/** `dataModels.fields.update` */
export const DataModelsFieldsUpdateInput = Type.Object(
  {
    model: ModelKeyInput,
    key: FieldKeyInput,
    name: Type.Optional(NameInput),
    type: Type.Optional(FieldTypeSchema),
    config: Type.Optional(ConfigInput),
    required: Type.Optional(Type.Boolean()),
    indexed: Type.Optional(Type.Boolean()),
    position: Type.Optional(PositionInput),
  },
  { additionalProperties: false },
);

/** `dataModels.fields.archive` */
export const DataModelsFieldsArchiveInput = Type.Object({ model: ModelKeyInput, key: FieldKeyInput }, { additionalProperties: false });
