import { describe, expect, it } from 'vitest';
import type { RpcClient } from '../api/rpc-client';
import { chunks, deleteRecords, matchingIds, setFieldOnRecords } from './bulk';

function fakeRpc(answer: (procedure: string, input: Record<string, unknown>) => unknown) {
  const calls: Array<[string, Record<string, unknown>]> = [];
  const rpc: RpcClient = {
    call: async <T,>(procedure: string, input: unknown = {}) => {
      calls.push([procedure, input as Record<string, unknown>]);
      return answer(procedure, input as Record<string, unknown>) as T;
    },
    callVersioned: async () => {
      throw new Error('not used');
    },
  };
  return { rpc, calls };
}

describe('bulk work', () => {
  it('splits into batches of at most 1,000', () => {
    expect(chunks([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(chunks(Array.from({ length: 2001 }, (_, index) => index)).map((batch) => batch.length)).toEqual([1000, 1000, 1]);
  });

  it('collects the ids of every matching record, page by page, with the view input', async () => {
    const { rpc, calls } = fakeRpc((_, input) =>
      input['cursor'] ? { items: [{ id: 'c' }], nextCursor: null } : { items: [{ id: 'a' }, { id: 'b' }], nextCursor: 'next' },
    );
    await expect(matchingIds(rpc, { model: 'deals', q: 'acme', sort: 'title', limit: 50 })).resolves.toEqual({ ids: ['a', 'b', 'c'], capped: false });
    expect(calls[0]).toEqual(['records.list', { model: 'deals', q: 'acme', sort: 'title', limit: 100, fields: 'title' }]);
    expect(calls[1]?.[1]).toMatchObject({ cursor: 'next' });
  });

  it('deletes and updates in batches', async () => {
    const { rpc, calls } = fakeRpc(() => ({ items: [] }));
    const ids = Array.from({ length: 1500 }, (_, index) => `r${index}`);
    await deleteRecords(rpc, ids);
    await setFieldOnRecords(rpc, 'deals', ids.slice(0, 2), 'status', 'won');
    expect(calls.map(([procedure, input]) => [procedure, ((input['ids'] ?? input['records']) as unknown[]).length])).toEqual([
      ['records.deleteMany', 1000],
      ['records.deleteMany', 500],
      ['records.updateMany', 2],
    ]);
    expect(calls[2]?.[1]).toEqual({ model: 'deals', records: [{ id: 'r0', data: { status: 'won' } }, { id: 'r1', data: { status: 'won' } }] });
  });
});
