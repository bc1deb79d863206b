import { useCallback, useEffect, useRef, useState } from 'react';
import { useSignedIn } from '../session/session-context';

export interface KeysetPages<T> {
  items: T[];
  /** More pages follow (the last page's `nextCursor` was not null). */
  hasMore: boolean;
  loading: boolean;
  error: unknown;
  /** The first page again, e.g. to see what arrived since. */
  refresh(): Promise<void>;
  loadMore(): Promise<void>;
}

/**
 * A list procedure answering `{ items, nextCursor }`, page after page: each further page is asked
 * for with the previous one's cursor and appended, so rows never shift or repeat while new ones
 * arrive. Nothing is called while `input` is undefined; an answer for an input that has changed
 * since is dropped.
 */
export function useKeysetPages<T>(procedure: string, input: object | undefined): KeysetPages<T> {
  const { rpc } = useSignedIn();
  const [items, setItems] = useState<T[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>();
  const generation = useRef(0);
  // The input compared by value: a new object with the same values is the same list.
  const inputKey = input === undefined ? undefined : JSON.stringify(input);

  const fetchPage = useCallback(
    async (after: string | null) => {
      if (inputKey === undefined) return;
      const call = generation.current;
      setLoading(true);
      try {
        const page = await rpc.call<{ items: T[]; nextCursor: string | null }>(procedure, { ...JSON.parse(inputKey), ...(after ? { cursor: after } : {}) });
        if (call !== generation.current) return;
        setItems((current) => (after ? [...current, ...page.items] : page.items));
        setCursor(page.nextCursor);
        setError(undefined);
      } catch (failure) {
        if (call === generation.current) setError(failure);
      } finally {
        if (call === generation.current) setLoading(false);
      }
    },
    [rpc, procedure, inputKey],
  );

  useEffect(() => {
    generation.current += 1;
    setItems([]);
    setCursor(null);
    void fetchPage(null);
  }, [fetchPage]);

  const refresh = useCallback(() => {
    generation.current += 1;
    return fetchPage(null);
  }, [fetchPage]);
  const loadMore = useCallback(() => fetchPage(cursor), [fetchPage, cursor]);
  return { items, hasMore: cursor !== null, loading, error, refresh, loadMore };
}
