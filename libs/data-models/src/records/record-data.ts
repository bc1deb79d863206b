import { validationFailed, type DomainError, type ErrorDetail } from '@mrp/platform';
import { compileRecordValidator, computeFormulas, TITLE_FIELD_KEY, type FieldError, type RecordValidator } from '@mrp/field-validation';
import { isLive, liveDefinitions, toDefinition, type FieldShape } from '../models/model-store';

// Keyed by the field list itself: the per-process model cache hands the same list to every write
// until the model's fields change, so each version of a model is compiled once.
const validators = new WeakMap<readonly FieldShape[], RecordValidator>();

function validatorFor(fields: readonly FieldShape[]): RecordValidator {
  let validator = validators.get(fields);
  if (!validator) {
    validator = compileRecordValidator(fields.map(toDefinition));
    validators.set(fields, validator);
  }
  return validator;
}

/** Validates a create body or a PATCH against the model's fields (archived ones included, so writes to them are refused). */
export function validateWrite(fields: readonly FieldShape[], data: unknown, mode: 'create' | 'update'): Record<string, unknown> {
  const result = validatorFor(fields)(data, { mode });
  if (!result.ok) throw validationFailed(result.errors.map(errorDetail));
  return result.value;
}

/** A batch refusal names at most this many problems, then how many there were in all. */
export const MAX_BATCH_ERROR_DETAILS = 100;

/** Where a problem of one record of a batch is: `records[17].data.email`. */
export function batchDetail(index: number, detail: ErrorDetail, under = 'data'): ErrorDetail {
  const path = detail.field ? `${under}.${detail.field}` : under;
  return { ...detail, field: `records[${index}].${path}` };
}

/** One validation_failed for a whole batch: its first problems, and how many there were in all. */
export function batchRefusal(details: readonly ErrorDetail[]): DomainError {
  const records = new Set(details.map((detail) => /^records\[(\d+)\]/.exec(detail.field)?.[1])).size;
  const shown = details.slice(0, MAX_BATCH_ERROR_DETAILS);
  const more = details.length > shown.length ? `; the first ${shown.length} are listed` : '';
  return validationFailed(shown, `${details.length} problem${details.length === 1 ? '' : 's'} in ${records} record${records === 1 ? '' : 's'}${more}; nothing was written`);
}

/** Validates every record of a batch; one refusal names each bad one by its path. */
export function validateBatch(fields: readonly FieldShape[], batch: readonly unknown[], mode: 'create' | 'update'): Record<string, unknown>[] {
  const validate = validatorFor(fields);
  const values: Record<string, unknown>[] = [];
  const details: ErrorDetail[] = [];
  batch.forEach((data, index) => {
    const result = validate(data, { mode });
    if (result.ok) values.push(result.value);
    else details.push(...result.errors.map((error) => batchDetail(index, errorDetail(error))));
  });
  if (details.length > 0) throw batchRefusal(details);
  return values;
}

export function errorDetail(error: FieldError) {
  return { field: error.field, code: error.code, message: error.message };
}

/** Applies a validated merge patch: null clears a key (no value is stored as an absent key). */
export function mergePatch(current: Readonly<Record<string, unknown>>, patch: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

/** Recomputes every formula on the full record; a formula without a result is stored as absent. */
export function withFormulas(fields: readonly FieldShape[], data: Record<string, unknown>): Record<string, unknown> {
  // Without formulas computeFormulas returns a copy of `data`: skip it (a hot path of every write).
  if (!fields.some((field) => field.type === 'FORMULA' && isLive(field))) return mergePatch({}, data);
  return mergePatch({}, computeFormulas(liveDefinitions(fields), data));
}

export function titleOf(data: Readonly<Record<string, unknown>>): string {
  const title = data[TITLE_FIELD_KEY];
  return typeof title === 'string' ? title : '';
}

/** JSON with object keys sorted, so equal values compare equal whatever their key order. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

/** Keys of live fields whose value differs between two versions of a record (formulas included). */
export function changedFieldKeys(fields: readonly FieldShape[], before: Readonly<Record<string, unknown>>, after: Readonly<Record<string, unknown>>): string[] {
  return fields
    .filter((field) => !field.archivedAt && canonical(before[field.key]) !== canonical(after[field.key]))
    .map((field) => field.key);
}
