import '../views/views.css';
import { lazy, Suspense, useMemo, useState } from 'react';
import type { PageProps } from '../app/pages';
import { Link } from '../app/router';
import { useRpcQuery } from '../api/use-rpc-query';
import { ErrorNotice } from '../components/ErrorNotice';
import type { DataRecord } from '../data-models/types';
import { RecordFormDialog } from '../records/RecordFormDialog';
import { useModelName } from '../data-models/use-model-name';
import { useSignedIn } from '../session/session-context';
import type { CalendarGridProps } from '../views/calendar-cells';
import { dayKey, eventWindow, shiftAnchor, startOfDay, weekDays, type CalendarView } from '../views/calendar-grid';
import { CalendarMonth } from '../views/CalendarMonth';
import { EventDialog } from '../views/EventDialog';
import { eventsByDay } from '../views/events-by-day';
import type { CalendarFields } from '../views/reschedule';
import { useCalendarEvents } from '../views/use-calendar-events';
import { useReschedule } from '../views/use-reschedule';

/** The week view is loaded the first time someone switches to it. */
const CalendarWeek = lazy(() => import('../views/CalendarWeek'));

/** A new DATETIME record made from a month day starts at this hour. */
const DEFAULT_HOUR = 9;
const monthTitle = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric' });
const shortDay = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', month: 'short' });

/** A calendar: month and week views of a model's records, new records on a clicked day, drag or "Move to date" to reschedule (use-reschedule). */
export default function CalendarPage({ params }: PageProps) {
  const calendarId = params.id as string;
  const { permissions } = useSignedIn();
  const calendar = useRpcQuery('calendars.get', { id: calendarId });
  const modelKey = calendar.data?.modelKey;
  const modelName = useModelName(modelKey);
  const fieldList = useRpcQuery('dataModels.fields.list', { model: modelKey ?? '' }, { enabled: modelKey !== undefined });
  const fields = useMemo(() => fieldList.data?.items ?? [], [fieldList.data]);
  const startType = fields.find((field) => field.key === calendar.data?.startFieldKey)?.type;
  const calendarFields = useMemo<CalendarFields | undefined>(
    () =>
      calendar.data && (startType === 'DATE' || startType === 'DATETIME')
        ? { type: startType, startKey: calendar.data.startFieldKey, endKey: calendar.data.endFieldKey }
        : undefined,
    [calendar.data, startType],
  );

  const [view, setView] = useState<CalendarView>('month');
  const [anchor, setAnchor] = useState(() => startOfDay(new Date()));
  const shownWindow = useMemo(() => (calendarFields ? eventWindow(view, anchor, calendarFields.type) : undefined), [view, anchor, calendarFields]);
  const events = useCalendarEvents(calendarId, shownWindow);
  const [creating, setCreating] = useState<Record<string, unknown> | null>(null);
  const [editing, setEditing] = useState<DataRecord>();
  const [menu, setMenu] = useState<DataRecord>();
  const mayCreate = permissions.has('records.create');
  const mayEdit = permissions.has('records.update');
  const moves = useReschedule(calendarFields, fields, events, mayEdit);
  const byDay = useMemo(() => (calendarFields ? eventsByDay(events.events ?? [], calendarFields) : new Map<string, DataRecord[]>()), [events.events, calendarFields]);

  if (calendar.error || fieldList.error) {
    return (
      <section>
        <p>
          <Link to="/calendars">← Calendars</Link>
        </p>
        <ErrorNotice error={calendar.error ?? fieldList.error} />
      </section>
    );
  }
  if (!calendar.data || !fieldList.data) return <p role="status">Loading…</p>;
  if (!calendarFields) {
    return (
      <section>
        <p>
          <Link to="/calendars">← Calendars</Link>
        </p>
        <h1>{calendar.data.name}</h1>
        <p className="notice notice-warning">The start field {calendar.data.startFieldKey} is no longer a date field of {modelName}.</p>
      </section>
    );
  }
  const cal = calendarFields;

  /** A new record starting on `day` (at `hour`, or 09:00, for date-and-time fields). */
  const createOn = (day: Date, hour?: number) => {
    if (!mayCreate) return;
    const value = cal.type === 'DATE' ? dayKey(day) : new Date(day.getFullYear(), day.getMonth(), day.getDate(), hour ?? DEFAULT_HOUR).toISOString();
    setCreating({ [cal.startKey]: value });
  };

  const days = weekDays(anchor);
  const title = view === 'month' ? monthTitle.format(anchor) : `${shortDay.format(days[0] as Date)} – ${shortDay.format(days[6] as Date)}`;
  const grid: CalendarGridProps = {
    anchor,
    title,
    cal,
    byDay,
    today: dayKey(new Date()),
    dropDay: moves.dropDay,
    mayCreate,
    mayEdit,
    drag: moves.drag,
    onCreate: createOn,
    onOpen: setMenu,
  };

  return (
    <section aria-labelledby="page-title">
      <p>
        <Link to="/calendars">← Calendars</Link>
      </p>
      <div className="page-header">
        <h1 id="page-title">{calendar.data.name}</h1>
        <div className="button-row" role="group" aria-label="View">
          {(['month', 'week'] as const).map((option) => (
            <button key={option} type="button" className={`button${view === option ? ' button-primary' : ''}`} aria-pressed={view === option} onClick={() => setView(option)}>
              {option === 'month' ? 'Month' : 'Week'}
            </button>
          ))}
        </div>
      </div>
      <p className="page-intro">
        Events are records of <Link to={`/models/${encodeURIComponent(calendar.data.modelKey)}/records`}>{modelName}</Link> by their <code>{cal.startKey}</code>
        {cal.endKey ? (
          <>
            {' '}
            to <code>{cal.endKey}</code>
          </>
        ) : null}{' '}
        field. {mayCreate ? 'Click a day to add one; ' : ''}
        {mayEdit ? 'drag an event to another day, or open it to move it to a date.' : ''}
      </p>
      <nav className="calendar-nav" aria-label="Dates">
        <button type="button" className="button" onClick={() => setAnchor(startOfDay(new Date()))}>
          Today
        </button>
        <button type="button" className="button" aria-label={view === 'month' ? 'Previous month' : 'Previous week'} onClick={() => setAnchor(shiftAnchor(view, anchor, -1))}>
          ←
        </button>
        <button type="button" className="button" aria-label={view === 'month' ? 'Next month' : 'Next week'} onClick={() => setAnchor(shiftAnchor(view, anchor, 1))}>
          →
        </button>
        <h2 className="calendar-title" aria-live="polite">
          {title}
        </h2>
      </nav>
      <p className="visually-hidden" role="status" aria-live="polite">
        {moves.announcement}
      </p>
      <ErrorNotice error={moves.moveError ?? events.error} />
      {events.truncated ? <p className="notice notice-warning">Only the first {events.events?.length} events of this window are shown.</p> : null}
      {events.events && events.events.length === 0 && !events.loading ? (
        <p className="field-hint" role="status">
          Nothing {view === 'month' ? 'this month' : 'this week'}.{' '}
          {mayCreate ? 'Click a day to add a record, or move to another ' + view + ' with the arrows.' : 'Move to another ' + view + ' with the arrows.'}
        </p>
      ) : null}

      <div className="calendar-wrap" role="region" aria-label={title} tabIndex={0} aria-busy={events.loading || undefined}>
        {view === 'month' ? (
          <CalendarMonth {...grid} />
        ) : (
          <Suspense fallback={<p className="loading" role="status">Loading…</p>}>
            <CalendarWeek {...grid} />
          </Suspense>
        )}
      </div>

      <RecordFormDialog
        open={creating !== null || editing !== undefined}
        modelKey={calendar.data.modelKey}
        modelName={modelName ?? calendar.data.modelKey}
        fields={fields}
        record={editing}
        prefill={creating ?? undefined}
        onClose={(saved) => {
          setCreating(null);
          setEditing(undefined);
          if (saved) void events.reload();
        }}
      />
      <EventDialog
        record={menu}
        fields={cal}
        mayEdit={mayEdit}
        onMove={(record, day) => moves.reschedule(record, { day })}
        onEdit={(record) => {
          setMenu(undefined);
          setEditing(record);
        }}
        onClose={() => setMenu(undefined)}
      />
    </section>
  );
}
