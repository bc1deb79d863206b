import { useCallback, useEffect, useRef, useState } from 'react';
import type { DataRecord } from '../data-models/types';
import { useSignedIn } from '../session/session-context';
import type { CalendarEventPage } from './types';

/** Pages of 100 read for one window at most: a month this full is shown in part, and says so. */
export const MAX_EVENT_PAGES = 10;

export interface CalendarEvents {
  events: DataRecord[] | undefined;
  /** More events lie in the window than were read. */
  truncated: boolean;
  error: unknown;
  loading: boolean;
  reload(): Promise<void>;
  /** Shows an event's new values at once (a reschedule the server is asked for). */
  replace(record: DataRecord): void;
}

/** The calendar's events in a window: `calendars.events`, page after page until done or the cap. */
export function useCalendarEvents(calendarId: string, shownWindow: { from: string; to: string } | undefined): CalendarEvents {
  const { rpc } = useSignedIn();
  const [events, setEvents] = useState<DataRecord[]>();
  const [truncated, setTruncated] = useState(false);
  const [error, setError] = useState<unknown>();
  const [loading, setLoading] = useState(false);
  const latest = useRef(0);
  const from = shownWindow?.from;
  const to = shownWindow?.to;

  const load = useCallback(async () => {
    if (!from || !to) return;
    const call = ++latest.current;
    setLoading(true);
    try {
      const read: DataRecord[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page: CalendarEventPage = await rpc.call('calendars.events', { id: calendarId, from, to, limit: 100, ...(cursor ? { cursor } : {}) });
        read.push(...page.items);
        cursor = page.nextCursor;
        pages += 1;
      } while (cursor && pages < MAX_EVENT_PAGES);
      if (call !== latest.current) return;
      setEvents(read);
      setTruncated(cursor !== null);
      setError(undefined);
    } catch (failure) {
      if (call === latest.current) setError(failure);
    } finally {
      if (call === latest.current) setLoading(false);
    }
  }, [rpc, calendarId, from, to]);

  useEffect(() => {
    void load();
  }, [load]);

  const replace = useCallback((record: DataRecord) => setEvents((known) => known?.map((event) => (event.id === record.id ? record : event))), []);

  return { events, truncated, error, loading, reload: load, replace };
}
