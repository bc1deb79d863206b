import { TITLE_FIELD_KEY, type FieldType } from '@mrp/field-validation';
import { isSortable } from '../data-models/field-types';
import type { DataField } from '../data-models/types';
import { MAX_COLUMN_WIDTH, MIN_COLUMN_WIDTH, type GridViewState } from './view-state';

/** The system columns a grid can show beside the fields. */
export const SYSTEM_COLUMNS = [
  { key: 'createdAt', label: 'Created' },
  { key: 'updatedAt', label: 'Last modified' },
] as const;
export type SystemColumnKey = (typeof SYSTEM_COLUMNS)[number]['key'];

export interface GridColumn {
  key: string;
  label: string;
  /** The field shown; none for a system column. */
  field?: DataField;
  width: number;
  sortable: boolean;
  /** Numbers are right-aligned, as in a spreadsheet. */
  numeric: boolean;
}

const DEFAULT_WIDTHS: Partial<Record<FieldType, number>> = {
  NUMBER: 120,
  BOOLEAN: 84,
  DATE: 130,
  DATETIME: 180,
  EMAIL: 220,
  URL: 220,
  LONG_TEXT: 260,
  RICH_TEXT: 260,
  MULTI_SELECT: 220,
};
const TITLE_WIDTH = 240;
const FIELD_WIDTH = 180;
const SYSTEM_WIDTH = 170;

const clampWidth = (width: number) => Math.min(MAX_COLUMN_WIDTH, Math.max(MIN_COLUMN_WIDTH, Math.round(width)));

function fieldColumn(field: DataField, widths: GridViewState['widths']): GridColumn {
  const fallback = field.key === TITLE_FIELD_KEY ? TITLE_WIDTH : (DEFAULT_WIDTHS[field.type] ?? FIELD_WIDTH);
  return {
    key: field.key,
    label: field.name,
    field,
    width: widths[field.key] ?? fallback,
    sortable: isSortable(field),
    numeric: field.type === 'NUMBER',
  };
}

export interface GridLayout {
  /** The frozen first column: the title. */
  title: GridColumn;
  /** The other columns shown, in display order. */
  columns: GridColumn[];
  /** Every column but the title in display order, shown or not (for the columns menu). */
  all: Array<GridColumn & { hidden: boolean }>;
}

/**
 * The grid's columns for a model's live fields (position order) and a view: the title first and
 * frozen, then the columns the view orders (unknown keys skipped), then the rest in the model's
 * order, the system columns last; hidden ones left out.
 */
export function gridLayout(fields: readonly DataField[], view: Pick<GridViewState, 'hidden' | 'order' | 'widths'>): GridLayout {
  const titleField = fields.find((field) => field.key === TITLE_FIELD_KEY);
  const title: GridColumn = titleField
    ? fieldColumn(titleField, view.widths)
    : { key: TITLE_FIELD_KEY, label: 'Title', width: view.widths[TITLE_FIELD_KEY] ?? TITLE_WIDTH, sortable: true, numeric: false };
  const others: GridColumn[] = [
    ...fields.filter((field) => field.key !== TITLE_FIELD_KEY).map((field) => fieldColumn(field, view.widths)),
    ...SYSTEM_COLUMNS.map(({ key, label }) => ({ key, label, width: view.widths[key] ?? SYSTEM_WIDTH, sortable: true, numeric: false })),
  ];
  const byKey = new Map(others.map((column) => [column.key, column]));
  const ordered = view.order.flatMap((key) => byKey.get(key) ?? []);
  const rest = others.filter((column) => !view.order.includes(column.key));
  const hidden = new Set(view.hidden);
  const all = [...ordered, ...rest].map((column) => ({ ...column, hidden: hidden.has(column.key) }));
  return { title, columns: all.filter((column) => !column.hidden), all };
}

/** The view's column order after moving `key` by `offset` places among `all` (every non-title key, in display order). */
export function moveColumn(all: readonly string[], key: string, offset: number): string[] {
  const from = all.indexOf(key);
  if (from < 0) return [...all];
  const to = Math.min(all.length - 1, Math.max(0, from + offset));
  const order = all.filter((candidate) => candidate !== key);
  order.splice(to, 0, key);
  return order;
}

/** The view's hidden list after showing or hiding `key`. */
export function toggleColumn(view: Pick<GridViewState, 'hidden'>, key: string, show: boolean): string[] {
  const hidden = view.hidden.filter((candidate) => candidate !== key);
  return show ? hidden : [...hidden, key];
}

export function resizeColumn(widths: GridViewState['widths'], key: string, width: number): GridViewState['widths'] {
  return { ...widths, [key]: clampWidth(width) };
}
