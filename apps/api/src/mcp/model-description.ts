import { recordDataSchema, type FieldDefinition, type JsonSchema } from '@mrp/field-validation';

/** A field as `dataModels.fields.list` answers it (the properties the description uses). */
export interface DescribedField {
  key: string;
  name: string;
  type: string;
  config: Record<string, unknown>;
  required: boolean;
}

export interface DescribedModel {
  key: string;
  name: string;
  description?: string | null;
}

/**
 * A model as an agent needs it: its fields (types, options, relations in `config`), and the JSON
 * Schemas of a record's `data` on create and on update, from field-validation's one rule (the same
 * schemas the per-organization OpenAPI document types each model with).
 */
export function describeModel(model: DescribedModel, fields: readonly DescribedField[]) {
  const definitions: FieldDefinition[] = fields.map(({ key, type, config, required }) => ({ key, type, config, required }) as FieldDefinition);
  return {
    model: { key: model.key, name: model.name, description: model.description ?? null },
    fields: fields.map(({ key, name, type, config, required }) => ({ key, name, type, config, required })),
    dataSchema: {
      create: recordDataSchema(definitions, 'create') as JsonSchema,
      update: recordDataSchema(definitions, 'update') as JsonSchema,
    },
  };
}

export type ModelDescription = ReturnType<typeof describeModel>;

/** One line per field, for the text an agent reads first. */
export function fieldSummary(description: ModelDescription): string {
  return description.fields
    .map((field) => {
      const options = Array.isArray(field.config['options'])
        ? ` [${(field.config['options'] as Array<{ value?: unknown }>).map((option) => String(option.value)).join(', ')}]`
        : '';
      const target = typeof field.config['targetModel'] === 'string' ? ` -> ${field.config['targetModel']}` : '';
      return `${field.key} (${field.type}${field.required ? ', required' : ''}${target})${options}`;
    })
    .join('; ');
}
