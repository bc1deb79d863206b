import { Type } from '@sinclair/typebox';
import { RECORD_COUNT_CAP } from './record-count-cap';
import { KeySchema, ModelKeyInput } from './schemas';

/**
 * The input schemas of the `dataModels.*` procedures (and of the model tasks'). Their static types
 * are the inputs of data-models' contracts (decision 155): this file imports nothing server-side.
 */

const NameInput = Type.String({ minLength: 1, maxLength: 200 });
const DescriptionInput = Type.String({ maxLength: 2000 });

/** `dataModels.list` */
export const DataModelsListInput = Type.Object(
  {
    recordCounts: Type.Optional(
      Type.Boolean({ description: `Also count each model's live records the caller may see (up to ${RECORD_COUNT_CAP.toLocaleString('en')}); needs records.read` }),
    ),
  },
  { additionalProperties: false },
);

/** `dataModels.get` */
export const DataModelsGetInput = Type.Object({ key: ModelKeyInput }, { additionalProperties: false });

/** `dataModels.create` */
export const DataModelsCreateInput = Type.Object(
  { key: KeySchema, name: NameInput, description: Type.Optional(DescriptionInput) },
  { additionalProperties: false },
);

/** `dataModels.update` */
export const DataModelsUpdateInput = Type.Object(
  {
    key: ModelKeyInput,
    name: Type.Optional(NameInput),
    description: Type.Optional(Type.Union([DescriptionInput, Type.Null()])),
  },
  { additionalProperties: false },
);

/** `dataModels.archive` */
export const DataModelsArchiveInput = Type.Object({ key: ModelKeyInput }, { additionalProperties: false });

/** `dataModels.catalog` */
export const DataModelsCatalogInput = Type.Object({}, { additionalProperties: false });
