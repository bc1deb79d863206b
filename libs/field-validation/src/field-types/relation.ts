import { booleanRule, stringRule } from '../config/config-rules';
import { required, withDefault } from '../config/config-schema';
import { FIELD_KEY_PATTERN } from '../core/field-definition';
import { describeType } from '../core/plain-object';
import type { Result } from '../core/result';
import { fail, ok } from '../core/result';
import { normaliseUuid } from '../values/uuid';
import type { FieldTypeHandler } from './field-type-handler';
import { configParser, isEmptyList } from './field-type-handler';
import { EQUALITY_OPS, SET_OPS } from '../filter/op-sets';

export type RelationConfig = { targetModel: string; multiple: boolean };

/** Bounds the work (and the SQL) a single write can cause; not user-configurable. */
export const MAX_RELATED_RECORDS = 1000;

/** Model keys follow the same snake_case rule as field keys. */
const modelKeyRule = stringRule({
  maxLength: 63,
  normalise: (text) => (FIELD_KEY_PATTERN.test(text) ? text : undefined),
  description: 'a model key (lowercase letters, digits and underscores, starting with a letter)',
});

export function validateRecordId(value: unknown, path: string): Result<string> {
  if (typeof value !== 'string') {
    return fail(path, 'invalid_type', `Must be a record id (UUID string), not ${describeType(value)}.`);
  }
  const id = normaliseUuid(value);
  return id === undefined ? fail(path, 'invalid_format', 'Must be a UUID.') : ok(id);
}

/** Only the shape is checked here; whether the records exist is the server's job (`not_found`). */
export const relationHandler: FieldTypeHandler<RelationConfig> = {
  parseConfig: configParser({ targetModel: required(modelKeyRule), multiple: withDefault(booleanRule, false) }),
  validateValue(value, config, path) {
    if (!config.multiple) {
      return Array.isArray(value)
        ? fail(path, 'invalid_type', 'Must be a single record id.')
        : validateRecordId(value, path);
    }
    if (!Array.isArray(value)) return fail(path, 'invalid_type', 'Must be an array of record ids.');
    if (value.length > MAX_RELATED_RECORDS) {
      return fail(path, 'too_long', `Must contain at most ${MAX_RELATED_RECORDS} record ids.`);
    }
    const ids = new Set<string>();
    for (let index = 0; index < value.length; index++) {
      const id = validateRecordId(value[index], `${path}[${index}]`);
      if (!id.ok) return id;
      if (ids.has(id.value)) return fail(`${path}[${index}]`, 'invalid_format', 'Record ids must not repeat.');
      ids.add(id.value);
    }
    return ok([...ids]);
  },
  isEmpty: (value, config) => config.multiple && isEmptyList(value),
  valueKind: (config) => (config['multiple'] === true ? 'list' : 'text'),
  filterOps: (config) => (config['multiple'] === true ? SET_OPS : EQUALITY_OPS),
  filterOpsOfAnyConfig: ['eq', 'neq', 'contains', 'in', 'notIn', 'isEmpty', 'isNotEmpty'],
  filterOperands: () => ({ operand: validateRecordId }),
  valueSchema: ({ targetModel, multiple }) => {
    const id = { type: 'string', format: 'uuid', description: `The id of a ${targetModel} record`, 'x-target-model': targetModel };
    return multiple ? { type: 'array', items: id, uniqueItems: true, maxItems: MAX_RELATED_RECORDS } : id;
  },
};
