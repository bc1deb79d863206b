import { formatDateTime } from '../app/format';
import type { DataField } from '../data-models/types';

function optionLabel(field: DataField, value: unknown): string {
  const options = Array.isArray(field.config['options']) ? (field.config['options'] as Array<{ value: string; label?: string }>) : [];
  const option = options.find((candidate) => candidate.value === value);
  return option?.label ?? String(value);
}

/** A stored value as a grid cell shows it, in plain text. */
export function formatValue(field: DataField, value: unknown): string {
  if (value === undefined || value === null) return '';
  switch (field.type) {
    case 'BOOLEAN':
      return value === true ? 'Yes' : 'No';
    case 'DATETIME':
      return formatDateTime(String(value));
    case 'SELECT':
      return optionLabel(field, value);
    case 'MULTI_SELECT':
      return Array.isArray(value) ? value.map((item) => optionLabel(field, item)).join(', ') : String(value);
    case 'FILE':
      return String((value as { name?: unknown }).name ?? '');
    case 'ATTACHMENTS':
      return Array.isArray(value) ? value.map((file) => String((file as { name?: unknown }).name ?? '')).join(', ') : '';
    case 'RELATION':
      return Array.isArray(value) ? `${value.length} linked` : String(value);
    case 'RICH_TEXT':
      // Shown as text, never as markup: the grid is no place to render stored HTML.
      return String(value).replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
    default:
      return typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
}
