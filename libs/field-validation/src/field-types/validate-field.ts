import type { FieldDefinition } from '../core/field-definition';
import { isFieldType } from '../core/field-types';
import type { FieldType } from '../core/field-types';
import type { Result } from '../core/result';
import { fail, failWith, ok } from '../core/result';
import { findUnstorableText } from '../values/storable-value';
import { CONFIG_PATH } from './field-type-handler';
import type { CompiledField } from './registry';
import { compileField } from './registry';

/**
 * Validates a field type's configuration and returns it with defaults filled in; text PostgreSQL
 * could not store exactly is refused (stored configurations were checked when they were written).
 * Errors are reported at `config.<key>` (or `type` for an unknown type). Never throws.
 */
export function validateFieldConfig(type: FieldType, config: unknown): Result<Record<string, unknown>> {
  if (!isFieldType(type)) return fail('type', 'invalid_option', 'Unknown field type.');
  const compiled = compileField(type, config);
  if (!compiled.ok) return compiled;
  const unstorable = findUnstorableText(compiled.value.config, CONFIG_PATH);
  return unstorable ? failWith([unstorable]) : ok({ ...compiled.value.config });
}

/**
 * Compiles a stored field definition. A definition whose configuration no longer validates is a
 * server-side inconsistency; it is reported on the field itself rather than thrown.
 */
export function compileDefinition(field: FieldDefinition): Result<CompiledField> {
  if (!isFieldType(field.type)) return fail(field.key, 'invalid_type', `Field "${field.key}" has an unknown type.`);
  const compiled = compileField(field.type, field.config);
  if (compiled.ok) return compiled;
  const reasons = compiled.errors.map((error) => `${error.field}: ${error.message}`).join(' ');
  return fail(field.key, 'invalid_format', `Field "${field.key}" has an invalid configuration. ${reasons}`);
}

/**
 * Validates one value for one field and returns it normalised (e.g. DATETIME converted to UTC).
 * null and undefined are accepted as "empty" (returned as null): whether emptiness is allowed is
 * decided by validateRecordData, which knows about `required` and create/update semantics.
 */
export function validateFieldValue(field: FieldDefinition, value: unknown): Result<unknown> {
  try {
    if (value === null || value === undefined) return ok(null);
    const compiled = compileDefinition(field);
    return compiled.ok ? compiled.value.validateValue(value, field.key) : compiled;
  } catch {
    // Only reachable with exotic input such as throwing getters or revoked proxies.
    return fail(String(field?.key ?? ''), 'invalid_type', 'The value could not be read.');
  }
}
