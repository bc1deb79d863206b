import { act, renderHook } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { DataRecord } from '../data-models/types';
import { useSelection } from './use-selection';

const record = (id: string) => ({ id }) as DataRecord;
const loaded = [record('a'), record('b'), record('c')];

describe('useSelection', () => {
  it('ticks rows, all loaded rows, or every matching record, and a new view clears it', () => {
    const { result, rerender } = renderHook(({ view }) => useSelection(view), { initialProps: { view: 'v1' } });
    act(() => result.current.toggle('a', true));
    expect(result.current.count).toBe(1);
    expect(result.current.allLoadedSelected(loaded)).toBe(false);

    act(() => result.current.setLoaded(loaded, true));
    expect(result.current.allLoadedSelected(loaded)).toBe(true);

    act(() => result.current.selectAllMatching(loaded));
    expect(result.current.allMatching).toBe(true);
    expect(result.current.has('not-loaded')).toBe(true);

    // Unticking one row of "all matching" leaves the other loaded ones.
    act(() => result.current.toggle('b', false));
    expect(result.current.allMatching).toBe(false);
    expect([...result.current.ids]).toEqual(['a', 'c']);

    rerender({ view: 'v2' });
    expect(result.current.count).toBe(0);
  });
});
