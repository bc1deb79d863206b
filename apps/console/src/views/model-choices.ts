import { liveFields } from '../data-models/field-types';
import type { DataField } from '../data-models/types';
import type { Option } from '../forms/fields';

/** The live fields of the given types, as choices. */
export function fieldChoices(fields: readonly DataField[], types: readonly string[]): Option[] {
  return liveFields(fields)
    .filter((field) => types.includes(field.type))
    .map((field) => ({ value: field.key, label: `${field.name} (${field.key})` }));
}

/** A field's name by key, or the key itself when the field is gone. */
export function fieldName(fields: readonly DataField[], key: string | null): string {
  if (key === null) return '—';
  return fields.find((field) => field.key === key)?.name ?? key;
}
