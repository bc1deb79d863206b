import { FIELD_TYPES, valueKind, type FieldType } from '@mrp/field-validation';
import type { DataField } from './types';

/** What each field type is called in the console, with one line on what it holds. */
export const FIELD_TYPE_INFO: Readonly<Record<FieldType, { label: string; description: string }>> = {
  TEXT: { label: 'Text', description: 'One line of text' },
  LONG_TEXT: { label: 'Long text', description: 'Text with line breaks' },
  RICH_TEXT: { label: 'Rich text', description: 'Formatted text (a small set of HTML tags)' },
  NUMBER: { label: 'Number', description: 'A number, with optional bounds and decimal places' },
  BOOLEAN: { label: 'Yes / no', description: 'True or false' },
  DATE: { label: 'Date', description: 'A calendar day' },
  DATETIME: { label: 'Date and time', description: 'A moment in time, with optional reminders' },
  SELECT: { label: 'Single select', description: 'One of a list of options' },
  MULTI_SELECT: { label: 'Multiple select', description: 'Some of a list of options' },
  RELATION: { label: 'Relation', description: 'Links to records of another model' },
  URL: { label: 'URL', description: 'A web address (http or https)' },
  EMAIL: { label: 'Email', description: 'An email address' },
  FORMULA: { label: 'Formula', description: 'Computed from the record’s other fields' },
  FILE: { label: 'File', description: 'A link to one file' },
  ATTACHMENTS: { label: 'Attachments', description: 'Links to several files' },
};

export const FIELD_TYPE_OPTIONS = FIELD_TYPES.map((type) => ({ value: type, label: `${FIELD_TYPE_INFO[type].label} (${type})` }));

/** Whether an index can hold the field's values: objects (files) are nothing an index could order or match. */
export function isIndexable(field: Pick<DataField, 'type' | 'config'>): boolean {
  return valueKind(field) !== 'object';
}

/**
 * Whether `records.list` can sort by the field: lists (multiple select, multiple relations) and
 * objects (files) have no order; a formula sorts as its result. Its value kind says.
 */
export function isSortable(field: Pick<DataField, 'type' | 'config'>): boolean {
  const kind = valueKind(field);
  return kind !== 'list' && kind !== 'object';
}

/** Live fields in position order (the list procedure already leaves archived ones out). */
export function liveFields(fields: readonly DataField[]): DataField[] {
  return fields.filter((field) => !field.archivedAt).sort((a, b) => a.position - b.position || a.key.localeCompare(b.key));
}
