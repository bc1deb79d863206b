import { TITLE_FIELD_KEY } from '@mrp/field-validation';
import type { DataField } from '../data-models/types';
import { liveFields } from '../data-models/field-types';
import { searchListInput } from '../records/quick-search';
import type { GridViewState } from '../records/view-state';

export type ExportFormat = 'csv' | 'ndjson';

/**
 * The fields the grid shows, in its order: the title first (it is always shown), then the ordered
 * columns, then the rest in the model's order, less the hidden ones. System columns (createdAt,
 * updatedAt) are left to the export, which always writes them.
 */
export function visibleFieldKeys(fields: readonly DataField[], state: Pick<GridViewState, 'hidden' | 'order'>): string[] {
  const live = liveFields(fields).map((field) => field.key);
  const known = new Set(live);
  const hidden = new Set(state.hidden);
  const ordered = [...state.order.filter((key) => known.has(key)), ...live.filter((key) => !state.order.includes(key))];
  return [TITLE_FIELD_KEY, ...ordered.filter((key) => key !== TITLE_FIELD_KEY && !hidden.has(key))];
}

/** The export route's address for the grid's view: its search, filter, sort and visible columns. */
export function exportPath(modelKey: string, state: GridViewState, fields: readonly DataField[], format: ExportFormat): string {
  const params = new URLSearchParams({ format });
  // The rows the grid lists: its search finds option labels too (searchListInput).
  const { q, filter } = searchListInput(state.q, state.filter, fields);
  if (q) params.set('q', q);
  if (filter) params.set('filter', JSON.stringify(filter));
  params.set('sort', state.sort);
  params.set('fields', visibleFieldKeys(fields, state).join(','));
  return `/api/v1/models/${encodeURIComponent(modelKey)}/records/export?${params.toString()}`;
}

/** The download's file name: the model's key and the day, e.g. `deals-2026-11-27.csv`. */
export function exportFileName(modelKey: string, format: ExportFormat, now = new Date()): string {
  return `${modelKey}-${now.toISOString().slice(0, 10)}.${format}`;
}
