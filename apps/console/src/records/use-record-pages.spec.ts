import { act, renderHook, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { RpcClient } from '../api/rpc-client';
import type { DataRecord, RecordPage } from '../data-models/types';
import { useRecordPages } from './use-record-pages';

const pending: Array<{ input: Record<string, unknown>; resolve: (page: RecordPage) => void }> = [];
const rpc: RpcClient = {
  call: <T,>(_: string, input: unknown = {}) => new Promise<T>((resolve) => pending.push({ input: input as Record<string, unknown>, resolve: resolve as (page: RecordPage) => void })),
};
vi.mock('../session/session-context', () => ({
  useSession: () => ({ rpc, state: { status: 'signed-in', organizationId: 'org-1' } }),
}));

const record = (id: string) => ({ id, title: id }) as DataRecord;

describe('useRecordPages', () => {
  it('appends the next page once however often it is asked for, drops answers to an older view, and edits rows in place', async () => {
    pending.length = 0;
    const { result, rerender } = renderHook(({ q }) => useRecordPages({ model: 'deals', sort: 'title', limit: 2, ...(q ? { q } : {}) }), { initialProps: { q: '' } });
    expect(result.current.loading).toBe(true);
    await waitFor(() => expect(pending).toHaveLength(1));
    await act(async () => pending[0]?.resolve({ items: [record('a'), record('b')], nextCursor: 'c1' }));
    expect(result.current.items.map((item) => item.id)).toEqual(['a', 'b']);
    expect(result.current.hasMore).toBe(true);

    act(() => {
      result.current.loadMore();
      result.current.loadMore();
    });
    expect(pending).toHaveLength(2);
    expect(pending[1]?.input).toEqual({ model: 'deals', sort: 'title', limit: 2, cursor: 'c1' });
    await act(async () => pending[1]?.resolve({ items: [record('c')], nextCursor: null }));
    expect(result.current.items.map((item) => item.id)).toEqual(['a', 'b', 'c']);
    expect(result.current.hasMore).toBe(false);

    act(() => result.current.replace({ ...record('b'), title: 'B!' }));
    act(() => result.current.remove(new Set(['a'])));
    expect(result.current.items.map((item) => item.title)).toEqual(['B!', 'c']);

    // A new search starts over; the answer to a page of the old one, arriving late, is dropped.
    act(() => result.current.reload());
    rerender({ q: 'x' });
    await waitFor(() => expect(pending.length).toBeGreaterThanOrEqual(4));
    const newest = pending[pending.length - 1];
    expect(newest?.input).toEqual({ model: 'deals', sort: 'title', limit: 2, q: 'x' });
    await act(async () => newest?.resolve({ items: [record('x1')], nextCursor: null }));
    await act(async () => pending[2]?.resolve({ items: [record('old')], nextCursor: null }));
    expect(result.current.items.map((item) => item.id)).toEqual(['x1']);
  });
});
