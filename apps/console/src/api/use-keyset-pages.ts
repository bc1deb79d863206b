import { useCallback, useEffect, useRef, useState } from 'react';
import { useSignedIn } from '../session/session-context';
import type { ProcedureInput, ProcedureOutput, TypedProcedure } from './rpc-client';

/** A procedure that answers pages, `{ items, nextCursor }`, and takes a page's cursor back as `cursor`. */
export type KeysetProcedure = {
  [Name in TypedProcedure]: ProcedureOutput<Name> extends { items: readonly unknown[]; nextCursor: infer Cursor }
    ? string extends Cursor
      ? 'cursor' extends keyof ProcedureInput<Name>
        ? Name
        : never
      : never
    : never;
}[TypedProcedure];

/** One item of a keyset procedure's pages. */
export type KeysetItem<Name extends KeysetProcedure> = ProcedureOutput<Name>['items'][number];

/** The input of the first page; the helper adds the cursor of each further one. */
export type KeysetInput<Name extends KeysetProcedure> = Omit<ProcedureInput<Name>, 'cursor'>;

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
export function useKeysetPages<Name extends KeysetProcedure>(procedure: Name, input: KeysetInput<Name> | undefined): KeysetPages<KeysetItem<Name>> {
  const { rpc } = useSignedIn();
  const [items, setItems] = useState<KeysetItem<Name>[]>([]);
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
        const pageInput: ProcedureInput<Name> = { ...(JSON.parse(inputKey) as KeysetInput<Name>), ...(after ? { cursor: after } : {}) };
        const page = await rpc.call(procedure, ...[pageInput]);
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
