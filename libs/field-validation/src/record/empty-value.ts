import type { FieldDefinition } from '../core/field-definition';
import { compileDefinition } from '../field-types/validate-field';

/**
 * Emptiness as the `required` rule sees it, per field type: null (and undefined) always; `""` for
 * the free-text types (TEXT, LONG_TEXT, RICH_TEXT, URL, EMAIL); `[]` for the list types
 * (MULTI_SELECT, multiple RELATION, ATTACHMENTS). Everything else, including 0, false,
 * whitespace-only text and an empty string or array given to another type, is a value (which the
 * type may then refuse).
 */
export function isEmptyFieldValue(field: FieldDefinition, value: unknown): boolean {
  if (value === null || value === undefined) return true;
  const compiled = compileDefinition(field);
  return compiled.ok && compiled.value.isEmpty(value);
}
