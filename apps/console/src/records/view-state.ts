import { useCallback, useMemo } from 'react';
import type { FilterNode } from '@mrp/field-validation';
import { setSearch, useCurrentSearch } from '../app/router';
import type { DataField } from '../data-models/types';
import { searchListInput } from './quick-search';

/**
 * What a records grid shows: the search, filter, sort and page size of its `records.list` calls,
 * and its columns (hidden, ordered, sized). It lives in the address, so a reload or a shared link
 * keeps it; a saved view stores the same object.
 */
export interface GridViewState {
  /** Quick search (`records.list` `q`). */
  q?: string;
  filter?: FilterNode;
  /** `records.list` `sort`: comma-separated keys, `-` for descending. */
  sort: string;
  /** Records per loaded page. */
  limit: number;
  /** Keys of hidden columns. */
  hidden: string[];
  /** Column keys in display order; columns not named follow in the model's order. */
  order: string[];
  /** Column widths in CSS pixels, by key. */
  widths: Record<string, number>;
}

export const DEFAULT_SORT = '-createdAt';
export const DEFAULT_LIMIT = 100;
/** The most `records.list` takes per page. */
export const MAX_LIMIT = 100;
export const MIN_COLUMN_WIDTH = 48;
export const MAX_COLUMN_WIDTH = 1200;
const MAX_SEARCH_LENGTH = 200;
const MAX_SORT_LENGTH = 200;
/** Sort keys and column keys: field keys, or the system columns (createdAt, updatedAt). */
const COLUMN_KEY = /^[A-Za-z][A-Za-z0-9_]{0,62}$/;
const SORT_KEY = /^-?[A-Za-z][A-Za-z0-9_]{0,62}$/;

export function defaultViewState(): GridViewState {
  return { sort: DEFAULT_SORT, limit: DEFAULT_LIMIT, hidden: [], order: [], widths: {} };
}

function keyList(text: string | null): string[] {
  if (!text) return [];
  const keys = text.split(',').filter((key) => COLUMN_KEY.test(key));
  return [...new Set(keys)];
}

function widthsFrom(text: string | null): Record<string, number> {
  const widths: Record<string, number> = {};
  if (!text) return widths;
  for (const pair of text.split(',')) {
    const [key, value] = pair.split(':');
    const width = Number(value);
    if (key && COLUMN_KEY.test(key) && Number.isInteger(width)) {
      widths[key] = Math.min(MAX_COLUMN_WIDTH, Math.max(MIN_COLUMN_WIDTH, width));
    }
  }
  return widths;
}

function filterFrom(text: string | null): FilterNode | undefined {
  if (!text) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    // The server checks the tree itself (and says what is wrong); only its outer shape is checked here.
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as FilterNode) : undefined;
  } catch {
    return undefined;
  }
}

function sortFrom(text: string | null): string {
  if (!text || text.length > MAX_SORT_LENGTH) return DEFAULT_SORT;
  const terms = text.split(',');
  return terms.every((term) => SORT_KEY.test(term)) ? text : DEFAULT_SORT;
}

function limitFrom(text: string | null): number {
  const limit = Number(text);
  return text && Number.isInteger(limit) && limit >= 1 && limit <= MAX_LIMIT ? limit : DEFAULT_LIMIT;
}

/** The view state an address's query string names; what is missing or malformed takes its default. */
export function viewStateFromSearch(search: string): GridViewState {
  const params = new URLSearchParams(search);
  const q = params.get('q')?.slice(0, MAX_SEARCH_LENGTH);
  const filter = filterFrom(params.get('filter'));
  return {
    ...(q ? { q } : {}),
    ...(filter ? { filter } : {}),
    sort: sortFrom(params.get('sort')),
    limit: limitFrom(params.get('limit')),
    hidden: keyList(params.get('hidden')),
    order: keyList(params.get('order')),
    widths: widthsFrom(params.get('widths')),
  };
}

/**
 * The query string (`''` or `?...`) for a view state; defaults are left out, so a plain grid has a
 * plain address. `viewStateFromSearch(viewStateToSearch(s))` gives `s` back.
 */
export function viewStateToSearch(state: GridViewState): string {
  const params = new URLSearchParams();
  if (state.q) params.set('q', state.q);
  if (state.filter) params.set('filter', JSON.stringify(state.filter));
  if (state.sort !== DEFAULT_SORT) params.set('sort', state.sort);
  if (state.limit !== DEFAULT_LIMIT) params.set('limit', String(state.limit));
  if (state.hidden.length > 0) params.set('hidden', state.hidden.join(','));
  if (state.order.length > 0) params.set('order', state.order.join(','));
  const widths = Object.entries(state.widths);
  if (widths.length > 0) params.set('widths', widths.map(([key, width]) => `${key}:${Math.round(width)}`).join(','));
  const text = params.toString();
  return text ? `?${text}` : '';
}

export interface RecordListInput {
  model: string;
  q?: string;
  filter?: FilterNode;
  sort: string;
  limit: number;
}

/**
 * The `records.list` input a view asks for (add `cursor` for later pages, `expand` for relations);
 * its search also finds option labels of the model's `fields` (searchListInput).
 */
export function listInputOf(modelKey: string, state: GridViewState, fields: readonly DataField[]): RecordListInput {
  return {
    model: modelKey,
    ...searchListInput(state.q, state.filter, fields),
    sort: state.sort,
    limit: state.limit,
  };
}

export interface ViewStateChange {
  /** true while typing (no history entry per key); otherwise a new history entry. */
  replace?: boolean;
}

export interface ViewStateHandle {
  state: GridViewState;
  /** Changes some parts of the view. */
  update(patch: Partial<GridViewState>, options?: ViewStateChange): void;
  /** Shows a whole view (e.g. a saved one); unnamed parts take their defaults. */
  replaceState(next: GridViewState, options?: ViewStateChange): void;
}

/** The grid view state of the current address, and how to change it. */
export function useViewState(): ViewStateHandle {
  const search = useCurrentSearch();
  const state = useMemo(() => viewStateFromSearch(search), [search]);
  const replaceState = useCallback((next: GridViewState, options: ViewStateChange = {}) => {
    setSearch(viewStateToSearch(next), { replace: options.replace ?? false });
  }, []);
  const update = useCallback(
    (patch: Partial<GridViewState>, options: ViewStateChange = {}) => {
      // Read the address afresh: two updates in one event must not undo each other.
      const current = viewStateFromSearch(location.search);
      const next: GridViewState = { ...current, ...patch };
      if ('q' in patch && !patch.q) delete next.q;
      if ('filter' in patch && !patch.filter) delete next.filter;
      replaceState(next, options);
    },
    [replaceState],
  );
  return { state, update, replaceState };
}
