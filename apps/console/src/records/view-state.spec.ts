import { act, renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_LIMIT,
  DEFAULT_SORT,
  defaultViewState,
  listInputOf,
  useViewState,
  viewStateFromSearch,
  viewStateToSearch,
  type GridViewState,
} from './view-state';

const full: GridViewState = {
  q: 'acme & co',
  filter: { and: [{ field: 'amount', op: 'gt', value: 10 }, { field: 'status', op: 'in', value: ['open', 'won'] }] },
  sort: 'amount,-createdAt',
  limit: 50,
  hidden: ['notes', 'owner'],
  order: ['status', 'amount'],
  widths: { title: 320, amount: 96 },
};

describe('view state in the address', () => {
  it('round-trips every part', () => {
    const search = viewStateToSearch(full);
    expect(search.startsWith('?')).toBe(true);
    expect(viewStateFromSearch(search)).toEqual(full);
  });

  it('leaves defaults out, so a plain grid has a plain address', () => {
    expect(viewStateToSearch(defaultViewState())).toBe('');
    expect(viewStateFromSearch('')).toEqual(defaultViewState());
    expect(viewStateToSearch({ ...defaultViewState(), limit: 25 })).toBe('?limit=25');
  });

  it('takes defaults for malformed parts instead of failing', () => {
    const state = viewStateFromSearch('?sort=amount;drop&limit=5000&filter={oops&hidden=a,,B-1,a&widths=a:10,b:x,c:5000');
    expect(state.sort).toBe(DEFAULT_SORT);
    expect(state.limit).toBe(DEFAULT_LIMIT);
    expect(state.filter).toBeUndefined();
    expect(state.hidden).toEqual(['a']);
    expect(state.widths).toEqual({ a: 48, c: 1200 });
  });

  it('gives the records.list input of a view', () => {
    expect(listInputOf('deals', full, [])).toEqual({ model: 'deals', q: 'acme & co', filter: full.filter, sort: 'amount,-createdAt', limit: 50 });
    expect(listInputOf('deals', defaultViewState(), [])).toEqual({ model: 'deals', sort: DEFAULT_SORT, limit: DEFAULT_LIMIT });
  });
});

describe('useViewState', () => {
  afterEach(() => history.replaceState(null, '', '/'));

  it('reads the address and writes changes to it, pushing or replacing history', () => {
    history.replaceState(null, '', '/models/deals/records?q=acme');
    const { result } = renderHook(() => useViewState());
    expect(result.current.state.q).toBe('acme');
    const before = history.length;

    act(() => result.current.update({ q: 'acme inc' }, { replace: true }));
    expect(location.pathname).toBe('/models/deals/records');
    expect(location.search).toBe('?q=acme+inc');
    expect(result.current.state.q).toBe('acme inc');
    expect(history.length).toBe(before);

    act(() => result.current.update({ sort: 'amount' }));
    expect(history.length).toBe(before + 1);
    expect(result.current.state).toMatchObject({ q: 'acme inc', sort: 'amount' });

    act(() => result.current.update({ q: undefined }));
    expect(result.current.state.q).toBeUndefined();
    expect(location.search).toBe('?sort=amount');
  });
});
