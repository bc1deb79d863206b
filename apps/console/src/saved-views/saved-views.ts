import type { GridView as GridViewOutput } from '@mrp/views/contracts';
import { viewStateFromSearch, viewStateToSearch, type GridViewState } from '../records/view-state';

/**
 * `views.grids.list` items, `views.grids.create|update`: the state typed as the grid keeps it (its
 * filter a filter tree), where the schema says only "an object".
 */
export type GridView = Omit<GridViewOutput, 'state'> & { state: GridViewState };

/**
 * A saved view as the grid reads it. Its state was the grid's own when saved, and `views.grids.*`
 * stored it only once `records.list` took its filter, so the object the schema declares is a
 * filter tree.
 */
export const asGridView = (view: GridViewOutput): GridView => view as GridView;

/** Sharing a view, and changing or deleting a shared one, takes this permission. */
export const SHARING_PERMISSION = 'data-models.manage';

/** JSON with every object's keys sorted: the server stores a view's state as jsonb, which orders keys its own way. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined);
    return `{${entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Two states show the same grid when they say the same once normalized as the address would hold them (key order aside). */
export function sameState(a: GridViewState, b: GridViewState): boolean {
  return canonicalJson(normalizedState(a)) === canonicalJson(normalizedState(b));
}

/** The grid as it first opens, nothing chosen: the state of an address without view parameters. */
export function isDefaultState(state: GridViewState): boolean {
  return viewStateToSearch(state) === '';
}

/**
 * A saved state as the address would hold it: what the address cannot keep (a malformed part,
 * which takes its default there) is dropped here too, so applying it and comparing agree.
 */
export function normalizedState(state: GridViewState): GridViewState {
  return viewStateFromSearch(viewStateToSearch(state));
}

/**
 * The view the grid shows: the one picked, while it is still listed; else the first whose state
 * is the grid's (a reload of a view's address finds it again).
 */
export function activeView(views: readonly GridView[], state: GridViewState, pickedId: string | undefined): GridView | undefined {
  const picked = pickedId === undefined ? undefined : views.find((view) => view.id === pickedId);
  return picked ?? views.find((view) => sameState(normalizedState(view.state), state));
}

export function mayChangeView(view: GridView, permissions: ReadonlySet<string>): boolean {
  return !view.shared || permissions.has(SHARING_PERMISSION);
}

/** The caller's own views and the shared ones, each by name as listed. */
export function groupViews(views: readonly GridView[]): { personal: GridView[]; shared: GridView[] } {
  return { personal: views.filter((view) => !view.shared), shared: views.filter((view) => view.shared) };
}
