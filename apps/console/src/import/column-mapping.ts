import type { DataField } from '../data-models/types';
import { editableFields } from '../records/record-form';

/** For each CSV column (by index), the field it fills, or null when it is left out. */
export type ColumnMapping = Array<string | null>;

/** Case, accents, spaces and punctuation aside: `Due date`, `due_date` and `DUE-DATE` read alike. */
export function foldHeader(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

/** The fields an import can fill: every live field a person could type, title first (never a formula). */
export function importableFields(fields: readonly DataField[]): DataField[] {
  return editableFields(fields);
}

/**
 * Each header's field: first the exact key, then the exact name, then the two folded (case,
 * accents, spaces aside). A field fills one column at most; the first column that names it wins.
 */
export function mapColumns(headers: readonly string[], fields: readonly DataField[]): ColumnMapping {
  const candidates = importableFields(fields);
  const mapping: ColumnMapping = headers.map(() => null);
  const taken = new Set<string>();
  const rules: Array<(header: string, field: DataField) => boolean> = [
    (header, field) => header.trim() === field.key,
    (header, field) => header.trim() === field.name.trim(),
    (header, field) => foldHeader(header) !== '' && (foldHeader(header) === foldHeader(field.key) || foldHeader(header) === foldHeader(field.name)),
  ];
  for (const rule of rules) {
    headers.forEach((header, column) => {
      if (mapping[column] !== null) return;
      const field = candidates.find((candidate) => !taken.has(candidate.key) && rule(header, candidate));
      if (!field) return;
      mapping[column] = field.key;
      taken.add(field.key);
    });
  }
  return mapping;
}

/** The mapping with `column` now filling `fieldKey` (null: left out); another column that filled it is left out. */
export function remapColumn(mapping: ColumnMapping, column: number, fieldKey: string | null): ColumnMapping {
  return mapping.map((current, index) => (index === column ? fieldKey : fieldKey !== null && current === fieldKey ? null : current));
}
