import { useCallback, useEffect, useRef, useState } from 'react';
import type { DataRecord } from '../data-models/types';
import { useSession } from '../session/session-context';
import type { RecordListInput } from './view-state';

export interface RecordPages {
  items: DataRecord[];
  /** More records follow the loaded ones. */
  hasMore: boolean;
  /** The first page has not arrived yet. */
  loading: boolean;
  /** A page is on its way. */
  busy: boolean;
  error: unknown;
  /** Loads the next page, once (calls while one is on its way are ignored). */
  loadMore(): void;
  /** Starts again from the first page. */
  reload(): void;
  /** Shows a changed record in place. */
  replace(record: DataRecord): void;
  /** Takes records off the list (deleted). */
  remove(ids: ReadonlySet<string>): void;
}

interface PagesState {
  key: string;
  items: DataRecord[];
  cursor: string | null;
  loaded: boolean;
  error: unknown;
}

/**
 * A model's records in the view's order, one keyset page after another as the grid scrolls. A new
 * input (search, filter, sort, page size) starts over; answers to an older input are dropped.
 */
export function useRecordPages(input: RecordListInput & { expand?: string }, { enabled = true } = {}): RecordPages {
  const { rpc, state: session } = useSession();
  const organizationId = session.status === 'signed-in' ? session.organizationId : null;
  const key = JSON.stringify([input, organizationId]);
  const [state, setState] = useState<PagesState>({ key: '', items: [], cursor: null, loaded: false, error: undefined });
  const [busy, setBusy] = useState(false);
  const generation = useRef(0);
  const inFlight = useRef(false);

  const fetchPage = useCallback(
    async (cursor: string | null, fresh: boolean) => {
      const call = fresh ? ++generation.current : generation.current;
      inFlight.current = true;
      setBusy(true);
      try {
        const page = await rpc.call('records.list', { ...(JSON.parse(key) as [RecordListInput])[0], ...(cursor ? { cursor } : {}) });
        if (call !== generation.current) return;
        setState((current) => ({
          key,
          items: fresh || current.key !== key ? page.items : [...current.items, ...page.items],
          cursor: page.nextCursor,
          loaded: true,
          error: undefined,
        }));
      } catch (error) {
        if (call !== generation.current) return;
        setState((current) => ({ ...current, key, loaded: true, error }));
      } finally {
        if (call === generation.current) {
          inFlight.current = false;
          setBusy(false);
        }
      }
    },
    [rpc, key],
  );

  useEffect(() => {
    if (!enabled) return;
    void fetchPage(null, true);
  }, [fetchPage, enabled]);

  const current = state.key === key ? state : undefined;
  const cursor = current?.cursor ?? null;
  const loadMore = useCallback(() => {
    if (inFlight.current || !cursor) return;
    void fetchPage(cursor, false);
  }, [fetchPage, cursor]);
  const reload = useCallback(() => void fetchPage(null, true), [fetchPage]);
  const replace = useCallback((record: DataRecord) => {
    setState((previous) => ({ ...previous, items: previous.items.map((item) => (item.id === record.id ? record : item)) }));
  }, []);
  const remove = useCallback((ids: ReadonlySet<string>) => {
    setState((previous) => ({ ...previous, items: previous.items.filter((item) => !ids.has(item.id)) }));
  }, []);

  return {
    items: current?.items ?? [],
    hasMore: cursor !== null,
    loading: !current?.loaded,
    busy,
    error: current?.error,
    loadMore,
    reload,
    replace,
    remove,
  };
}
