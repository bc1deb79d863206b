import { describe, expect, it } from 'vitest';
import { defaultViewState, type GridViewState } from '../records/view-state';
import { activeView, groupViews, isDefaultState, mayChangeView, sameState, type GridView } from './saved-views';

const view = (id: string, state: Partial<GridViewState>, shared = false): GridView => ({
  id,
  modelKey: 'deals',
  name: id,
  state: { ...defaultViewState(), ...state },
  shared,
  createdBy: 'u1',
  createdAt: '2026-11-27T00:00:00Z',
  updatedAt: '2026-11-27T00:00:00Z',
});

describe('saved views', () => {
  const open = view('open', { filter: { field: 'status', op: 'eq', value: 'open' }, sort: 'amount' });
  const wide = view('wide', { widths: { amount: 300 } }, true);

  it('compares states by what the address would hold', () => {
    expect(sameState({ ...defaultViewState(), hidden: [] }, defaultViewState())).toBe(true);
    expect(sameState({ ...defaultViewState(), q: 'x' }, defaultViewState())).toBe(false);
  });

  it('takes a filter stored with its keys in another order (as jsonb keeps them) for the same', () => {
    const typed: GridViewState = { ...defaultViewState(), filter: { and: [{ field: 'amount', op: 'gt', value: 10 }] } as GridViewState['filter'] };
    const stored = JSON.parse('{"sort":"-createdAt","limit":100,"hidden":[],"order":[],"widths":{},"filter":{"and":[{"op":"gt","field":"amount","value":10}]}}') as GridViewState;
    expect(sameState(stored, typed)).toBe(true);
    expect(sameState(stored, { ...typed, filter: { and: [{ field: 'amount', op: 'gt', value: 11 }] } as GridViewState['filter'] })).toBe(false);
    expect(isDefaultState(defaultViewState())).toBe(true);
    expect(isDefaultState(typed)).toBe(false);
  });

  it("finds the grid's view by its state when none was picked, and keeps the picked one when changed", () => {
    expect(activeView([open, wide], wide.state, undefined)?.id).toBe('wide');
    expect(activeView([open, wide], { ...open.state, limit: 10 }, undefined)).toBeUndefined();
    expect(activeView([open, wide], { ...open.state, limit: 10 }, 'open')?.id).toBe('open');
    expect(activeView([wide], defaultViewState(), 'deleted')).toBeUndefined();
  });

  it('lets anyone change their own view, and only holders of data-models.manage a shared one', () => {
    expect(mayChangeView(open, new Set())).toBe(true);
    expect(mayChangeView(wide, new Set(['records.read']))).toBe(false);
    expect(mayChangeView(wide, new Set(['data-models.manage']))).toBe(true);
  });

  it('groups personal and shared views', () => {
    expect(groupViews([open, wide])).toEqual({ personal: [open], shared: [wide] });
  });
});
