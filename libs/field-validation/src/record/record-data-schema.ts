import type { FieldDefinition } from '../core/field-definition';
import { indexModelFields } from '../core/field-definition';
import type { JsonSchema } from '../core/json-schema';
import { compileDefinition } from '../field-types/validate-field';
import type { WriteMode } from './validate-record-data';

const NULL_SCHEMA: JsonSchema = Object.freeze({ type: 'null' });

/**
 * A required field's schema refuses the type's empty forms (`""` of free text, `[]` of a list),
 * which the validator refuses for it: asked of the type's own emptiness rule, never restated.
 */
function withoutEmptyForms(schema: JsonSchema, isEmpty: (value: unknown) => boolean): JsonSchema {
  const atLeast = (keyword: 'minLength' | 'minItems') => {
    const bound = schema[keyword];
    return { [keyword]: typeof bound === 'number' && bound > 1 ? bound : 1 };
  };
  return {
    ...schema,
    ...(schema['type'] === 'string' && isEmpty('') ? atLeast('minLength') : {}),
    ...(schema['type'] === 'array' && isEmpty([]) ? atLeast('minItems') : {}),
  };
}

/**
 * The JSON Schema of a record's `data` for the given fields, from the same field-type handlers
 * that validate it, so a description can never drift from the rule:
 *
 * - `create`: the whole record, as written and as read. Required fields are required and never
 *   empty; a field that is not may also be null. Computed fields (FORMULA) are `readOnly`: answered, never sent.
 * - `update`: a merge patch. Nothing is required; null clears a field that is not required.
 *
 * Archived fields are left out and unknown keys are refused (`additionalProperties: false`), as
 * `validateRecordData` does. A field whose stored configuration no longer compiles is described
 * as any value: the server reports it on write.
 */
export function recordDataSchema(fields: FieldDefinition[], mode: WriteMode): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const field of indexModelFields(fields).visible.values()) {
    const compiled = compileDefinition(field);
    if (!compiled.ok) {
      properties[field.key] = { description: 'This field has an invalid configuration' };
      continue;
    }
    const { valueSchema, computed, isEmpty } = compiled.value;
    const nullable = computed || !field.required;
    properties[field.key] = {
      ...(nullable ? { anyOf: [valueSchema, NULL_SCHEMA] } : withoutEmptyForms(valueSchema, isEmpty)),
      ...(computed ? { readOnly: true } : {}),
    };
    if (mode === 'create' && field.required && !computed) required.push(field.key);
  }
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}
