import { useCallback, useMemo, useState } from 'react';
import type { DataRecord } from '../data-models/types';

export interface RecordSelection {
  /** Every record matching the view is meant, loaded or not. */
  allMatching: boolean;
  count: number;
  ids: ReadonlySet<string>;
  has(id: string): boolean;
  toggle(id: string, selected: boolean): void;
  /** Selects (or clears) every loaded record. */
  setLoaded(records: readonly DataRecord[], selected: boolean): void;
  allLoadedSelected(records: readonly DataRecord[]): boolean;
  /** Means every record matching the view (the bulk actions then fetch their ids); unticking one falls back to the loaded ones. */
  selectAllMatching(loaded: readonly DataRecord[]): void;
  clear(): void;
}

/** The rows ticked in the grid; changing the view (a new `resetKey`) clears them. */
export function useSelection(resetKey: string): RecordSelection {
  const [state, setState] = useState<{ key: string; ids: Set<string>; allMatching: boolean }>({ key: resetKey, ids: new Set(), allMatching: false });
  const current = state.key === resetKey ? state : { key: resetKey, ids: new Set<string>(), allMatching: false };

  const update = useCallback(
    (change: (ids: Set<string>) => void, allMatching = false) =>
      setState((previous) => {
        const ids = new Set(previous.key === resetKey ? previous.ids : []);
        change(ids);
        return { key: resetKey, ids, allMatching };
      }),
    [resetKey],
  );

  return useMemo(
    () => ({
      allMatching: current.allMatching,
      count: current.ids.size,
      ids: current.ids,
      has: (id: string) => current.allMatching || current.ids.has(id),
      toggle: (id: string, selected: boolean) => update((ids) => (selected ? ids.add(id) : ids.delete(id))),
      setLoaded: (records: readonly DataRecord[], selected: boolean) =>
        update((ids) => {
          if (!selected) ids.clear();
          else for (const record of records) ids.add(record.id);
        }),
      allLoadedSelected: (records: readonly DataRecord[]) => current.allMatching || (records.length > 0 && records.every((record) => current.ids.has(record.id))),
      selectAllMatching: (loaded: readonly DataRecord[]) =>
        update((ids) => {
          for (const record of loaded) ids.add(record.id);
        }, true),
      clear: () => update((ids) => ids.clear()),
    }),
    [current, update],
  );
}
