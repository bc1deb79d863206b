import type { FieldDefinition } from '../core/field-definition';
import { indexModelFields } from '../core/field-definition';
import { isPlainObject, ownValue } from '../core/plain-object';
import type { FieldError, Result } from '../core/result';
import { fail, failWith, ok } from '../core/result';
import type { CompiledField } from '../field-types/registry';
import { compileDefinition } from '../field-types/validate-field';

export type WriteMode = 'create' | 'update';

export interface ValidateRecordOptions {
  mode: WriteMode;
}

/** Errors about the payload as a whole (not an object, unreadable) use this path. */
export const RECORD_ROOT_PATH = '$';

/**
 * Validates a record write and returns the normalised data. All problems are reported at once.
 *
 * - `create`: `data` is the whole record. Every required field (always including `title`) must be
 *   present and non-empty.
 * - `update`: `data` is a merge patch. Only the given keys are checked; `null` clears an optional
 *   field and is kept as null so the server knows to clear it. Emptying a required field is refused.
 *
 * In both modes unknown keys and archived fields give `unknown_field`, FORMULA fields give
 * `read_only`, and an empty value on an optional field is normalised to null so that "no value"
 * has a single representation. Empty is null, plus `""` for free-text types (TEXT, LONG_TEXT,
 * RICH_TEXT, URL, EMAIL) and `[]` for list types (MULTI_SELECT, multiple RELATION, ATTACHMENTS);
 * `""` or `[]` given to any other type is `invalid_type`. Keys whose value is `undefined` count as absent.
 * Never throws, whatever `data` is.
 */
export function validateRecordData(
  fields: FieldDefinition[],
  data: unknown,
  options: ValidateRecordOptions,
): Result<Record<string, unknown>> {
  return compileRecordValidator(fields)(data, options);
}

/** `validateRecordData` for one set of fields, compiled once: the server keeps one per model version. */
export type RecordValidator = (data: unknown, options: ValidateRecordOptions) => Result<Record<string, unknown>>;

/**
 * Compiles the fields (index by key, parse every configuration) once, so that validating a write
 * only checks values. Validating with it is exactly `validateRecordData` with the same fields.
 */
export function compileRecordValidator(fields: FieldDefinition[]): RecordValidator {
  let compiled: CompiledModel;
  try {
    compiled = compileModel(fields);
  } catch {
    // Only reachable with exotic definitions such as throwing getters or proxies.
    return () => fail(RECORD_ROOT_PATH, 'invalid_type', 'The record data could not be read.');
  }
  return (data, options) => {
    try {
      return validateRecord(compiled, data, options?.mode === 'update' ? 'update' : 'create');
    } catch {
      // Only reachable with exotic input such as throwing getters or proxies.
      return fail(RECORD_ROOT_PATH, 'invalid_type', 'The record data could not be read.');
    }
  };
}

interface CompiledModel {
  visible: ReadonlyMap<string, FieldDefinition>;
  /** Each visible field's compiled validator, or why its configuration does not compile. */
  compiled: Map<string, Result<CompiledField>>;
  required: FieldDefinition[];
}

function compileModel(fields: unknown): CompiledModel {
  const { visible } = indexModelFields(fields);
  const compiled = new Map<string, Result<CompiledField>>();
  for (const field of visible.values()) {
    if (field.type !== 'FORMULA') compiled.set(field.key, compileDefinition(field));
  }
  const required = [...visible.values()].filter((field) => field.required && field.type !== 'FORMULA');
  return { visible, compiled, required };
}

function validateRecord(model: CompiledModel, data: unknown, mode: WriteMode): Result<Record<string, unknown>> {
  if (!isPlainObject(data)) return fail(RECORD_ROOT_PATH, 'invalid_type', 'Record data must be a JSON object.');

  const errors: FieldError[] = [];
  const normalised: Record<string, unknown> = {};

  for (const symbol of Object.getOwnPropertySymbols(data)) {
    errors.push({ field: String(symbol), code: 'unknown_field', message: 'Unknown field.' });
  }

  for (const key of Object.keys(data)) {
    const value = data[key];
    const field = model.visible.get(key);
    if (!field) {
      // Archived fields are reported exactly like unknown ones: they are invisible to clients.
      errors.push({ field: key, code: 'unknown_field', message: `Unknown field "${key}".` });
      continue;
    }
    if (field.type === 'FORMULA') {
      errors.push({ field: key, code: 'read_only', message: `"${key}" is a formula field and is computed.` });
      continue;
    }
    if (value === undefined) continue;
    const compiled = model.compiled.get(key) ?? compileDefinition(field);
    if (!compiled.ok) {
      errors.push(...compiled.errors);
      continue;
    }
    if (compiled.value.isEmpty(value)) {
      if (field.required) errors.push(requiredError(key));
      else normalised[key] = null;
      continue;
    }
    const checked = compiled.value.validateValue(value, key);
    if (checked.ok) normalised[key] = checked.value;
    else errors.push(...checked.errors);
  }

  if (mode === 'create') {
    for (const field of model.required) {
      // Present-but-empty values were reported above; this catches the absent ones.
      if (ownValue(data, field.key) === undefined) errors.push(requiredError(field.key));
    }
  }

  return errors.length > 0 ? failWith(errors) : ok(normalised);
}

function requiredError(key: string): FieldError {
  return { field: key, code: 'required', message: `"${key}" is required.` };
}
