import { describe, expect, it } from 'vitest';
import type { DataRecord } from '../data-models/types';
import { eventsByDay } from './events-by-day';

const record = (id: string, data: Record<string, unknown>) => ({ id, title: id, data }) as unknown as DataRecord;

describe('events by day', () => {
  it('puts an event on every day it spans, in the order given, and skips one without a start', () => {
    const days = eventsByDay(
      [record('trip', { starts: '2026-11-02', ends: '2026-11-04' }), record('call', { starts: '2026-11-03' }), record('undated', { starts: null })],
      { type: 'DATE', startKey: 'starts', endKey: 'ends' },
    );
    expect(Object.fromEntries([...days].map(([day, records]) => [day, records.map((item) => item.id)]))).toEqual({
      '2026-11-02': ['trip'],
      '2026-11-03': ['trip', 'call'],
      '2026-11-04': ['trip'],
    });
  });
});
