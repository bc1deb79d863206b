/** Every type a data-model field can have. The order is the order a UI should offer them in. */
export const FIELD_TYPES = [
  'TEXT',
  'LONG_TEXT',
  'RICH_TEXT',
  'NUMBER',
  'BOOLEAN',
  'DATE',
  'DATETIME',
  'SELECT',
  'MULTI_SELECT',
  'RELATION',
  'URL',
  'EMAIL',
  'FORMULA',
  'FILE',
  'ATTACHMENTS',
] as const;

export type FieldType = (typeof FIELD_TYPES)[number];

const FIELD_TYPE_SET: ReadonlySet<string> = new Set(FIELD_TYPES);

export function isFieldType(value: unknown): value is FieldType {
  return typeof value === 'string' && FIELD_TYPE_SET.has(value);
}
