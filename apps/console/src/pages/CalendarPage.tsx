import '../views/views.css';
import { useMemo, useRef, useState, type DragEvent, type MouseEvent } from 'react';
import type { PageProps } from '../app/pages';
import { Link } from '../app/router';
import type { Items } from '../api/types';
import { useRpcQuery } from '../api/use-rpc-query';
import { ErrorNotice } from '../components/ErrorNotice';
import type { DataField, DataRecord } from '../data-models/types';
import { checkRecordData } from '../records/record-form';
import { RecordFormDialog } from '../records/RecordFormDialog';
import { useModelName } from '../data-models/use-model-name';
import { useSignedIn } from '../session/session-context';
import { daysOfEvent, dayKey, eventWindow, monthGrid, shiftAnchor, startOfDay, weekDays, type CalendarView } from '../views/calendar-grid';
import { EventDialog } from '../views/EventDialog';
import { longDay, startTime } from '../views/event-format';
import { rescheduledValues, type CalendarFields, type RescheduleTarget } from '../views/reschedule';
import type { Calendar } from '../views/types';
import { useCalendarEvents } from '../views/use-calendar-events';

const HOURS = Array.from({ length: 24 }, (_, hour) => hour);
/** A new DATETIME record made from a month day starts at this hour. */
const DEFAULT_HOUR = 9;
const monthTitle = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric' });
const shortDay = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', month: 'short' });
const weekdayName = new Intl.DateTimeFormat(undefined, { weekday: 'short' });
const hourLabel = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });

/** A calendar: month and week views of a model's records, new records on a clicked day, drag or "Move to date" to reschedule. */
export default function CalendarPage({ params }: PageProps) {
  const calendarId = params.id as string;
  const { rpc, permissions } = useSignedIn();
  const calendar = useRpcQuery<Calendar>('calendars.get', { id: calendarId });
  const modelKey = calendar.data?.modelKey;
  const modelName = useModelName(modelKey);
  const fieldList = useRpcQuery<Items<DataField>>('dataModels.fields.list', { model: modelKey ?? '' }, { enabled: modelKey !== undefined });
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
  const [moveError, setMoveError] = useState<unknown>();
  const [announcement, setAnnouncement] = useState('');
  const [dropDay, setDropDay] = useState<string | null>(null);
  const dragged = useRef<DataRecord | null>(null);

  const mayCreate = permissions.has('records.create');
  const mayEdit = permissions.has('records.update');

  /** Events by local day, each day's in start order. */
  const byDay = useMemo(() => {
    const days = new Map<string, DataRecord[]>();
    if (!calendarFields) return days;
    for (const record of events.events ?? []) {
      const start = record.data[calendarFields.startKey];
      if (typeof start !== 'string') continue;
      const end = calendarFields.endKey ? record.data[calendarFields.endKey] : undefined;
      for (const day of daysOfEvent(start, typeof end === 'string' ? end : undefined, calendarFields.type)) days.set(day, [...(days.get(day) ?? []), record]);
    }
    return days;
  }, [events.events, calendarFields]);

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
  const today = dayKey(new Date());

  /** A new record starting on `day` (at `hour`, or 09:00, for date-and-time fields). */
  const createOn = (day: Date, hour?: number) => {
    if (!mayCreate) return;
    const value = cal.type === 'DATE' ? dayKey(day) : new Date(day.getFullYear(), day.getMonth(), day.getDate(), hour ?? DEFAULT_HOUR).toISOString();
    setCreating({ [cal.startKey]: value });
  };

  /**
   * Moves an event: the new values are checked with the record rules before anything is sent,
   * shown at once, and put back when the server refuses (which is thrown).
   */
  const reschedule = async (record: DataRecord, target: RescheduleTarget) => {
    const values = rescheduledValues(cal, record.data, target);
    if (!values) return;
    const checked = checkRecordData(fields, values, 'update');
    if (checked.errors.length > 0) throw new Error(checked.errors.map((error) => `${error.field}: ${error.message}`).join(' '));
    events.replace({ ...record, data: { ...record.data, ...values } });
    try {
      events.replace(await rpc.call<DataRecord>('records.update', { id: record.id, data: values }));
      setAnnouncement(`${record.title} moved to ${longDay.format(new Date(`${target.day}T12:00:00`))}.`);
    } catch (failure) {
      events.replace(record);
      throw failure;
    }
    void events.reload();
  };

  const dragStart = (record: DataRecord) => (event: DragEvent<HTMLElement>) => {
    event.dataTransfer.setData('text/plain', record.id);
    event.dataTransfer.effectAllowed = 'move';
    dragged.current = record;
    setMoveError(undefined);
  };
  const dragOver = (day: string) => (event: DragEvent<HTMLElement>) => {
    if (!dragged.current || !mayEdit) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'move';
    if (dropDay !== day) setDropDay(day);
  };
  const drop = (target: RescheduleTarget) => (event: DragEvent<HTMLElement>) => {
    event.preventDefault();
    const record = dragged.current;
    dragged.current = null;
    setDropDay(null);
    if (record) reschedule(record, target).catch(setMoveError);
  };
  const dragEnd = () => {
    dragged.current = null;
    setDropDay(null);
  };
  /** A click on a day's free space (not on an event or a button) makes a record there. */
  const clickFree = (day: Date, hour?: number) => (event: MouseEvent<HTMLElement>) => {
    if ((event.target as HTMLElement).closest('button, a')) return;
    createOn(day, hour);
  };

  const chip = (record: DataRecord, day: string) => {
    const start = record.data[cal.startKey];
    const startsHere = typeof start === 'string' && (cal.type === 'DATE' ? start : dayKey(new Date(start))) === day;
    const time = startsHere ? startTime(record, cal) : '';
    return (
      <li key={record.id}>
        <button
          type="button"
          className={`event-chip${startsHere ? '' : ' event-chip-continued'}`}
          draggable={mayEdit}
          onDragStart={dragStart(record)}
          onDragEnd={dragEnd}
          onClick={() => setMenu(record)}
          aria-label={`${record.title || 'Untitled'}${time ? `, ${time}` : ''}${startsHere ? '' : ', continued'}`}
          data-event-id={record.id}
        >
          {time ? <span className="event-time">{time}</span> : null} {record.title || 'Untitled'}
        </button>
      </li>
    );
  };
  const dayButton = (day: Date, text: string) =>
    mayCreate ? (
      <button type="button" className="day-number" aria-label={`New record on ${longDay.format(day)}`} onClick={() => createOn(day)}>
        {text}
      </button>
    ) : (
      <span className="day-number">{text}</span>
    );

  const weeks = monthGrid(anchor);
  const days = weekDays(anchor);
  const title = view === 'month' ? monthTitle.format(anchor) : `${shortDay.format(days[0] as Date)} – ${shortDay.format(days[6] as Date)}`;

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
        {announcement}
      </p>
      <ErrorNotice error={moveError ?? events.error} />
      {events.truncated ? <p className="notice notice-warning">Only the first {events.events?.length} events of this window are shown.</p> : null}

      <div className="calendar-wrap" role="region" aria-label={title} tabIndex={0} aria-busy={events.loading || undefined}>
        {view === 'month' ? (
          <table className="calendar-grid calendar-month">
            <caption className="visually-hidden">{title}</caption>
            <thead>
              <tr>
                {(weeks[0] ?? []).map((day) => (
                  <th scope="col" key={day.getDay()}>
                    {weekdayName.format(day)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {weeks.map((week) => (
                <tr key={dayKey(week[0] as Date)}>
                  {week.map((day) => {
                    const key = dayKey(day);
                    return (
                      <td
                        key={key}
                        data-day={key}
                        className={`${day.getMonth() === anchor.getMonth() ? '' : 'other-month'}${dropDay === key ? ' drop-target' : ''}`}
                        aria-current={key === today ? 'date' : undefined}
                        onClick={clickFree(day)}
                        onDragOver={dragOver(key)}
                        onDrop={drop({ day: key })}
                      >
                        {dayButton(day, String(day.getDate()))}
                        <ul className="day-events">{(byDay.get(key) ?? []).map((record) => chip(record, key))}</ul>
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <table className="calendar-grid calendar-week">
            <caption className="visually-hidden">{title}</caption>
            <thead>
              <tr>
                {cal.type === 'DATETIME' ? <td /> : null}
                {days.map((day) => (
                  <th scope="col" key={dayKey(day)} aria-current={dayKey(day) === today ? 'date' : undefined}>
                    {dayButton(day, shortDay.format(day))}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {cal.type === 'DATE' ? (
                <tr>
                  {days.map((day) => {
                    const key = dayKey(day);
                    return (
                      <td key={key} data-day={key} className={dropDay === key ? 'drop-target' : undefined} onClick={clickFree(day)} onDragOver={dragOver(key)} onDrop={drop({ day: key })}>
                        <ul className="day-events">{(byDay.get(key) ?? []).map((record) => chip(record, key))}</ul>
                      </td>
                    );
                  })}
                </tr>
              ) : (
                HOURS.map((hour) => (
                  <tr key={hour}>
                    <th scope="row" className="hour-label">
                      {hourLabel.format(new Date(2000, 0, 1, hour))}
                    </th>
                    {days.map((day) => {
                      const key = dayKey(day);
                      const slot = `${key}T${hour}`;
                      const here = (byDay.get(key) ?? []).filter((record) => {
                        const start = new Date(String(record.data[cal.startKey]));
                        // An event that began on an earlier day shows in the day's first hour.
                        return dayKey(start) === key ? start.getHours() === hour : hour === 0;
                      });
                      return (
                        <td
                          key={key}
                          data-slot={slot}
                          className={dropDay === slot ? 'drop-target' : undefined}
                          onClick={clickFree(day, hour)}
                          onDragOver={dragOver(slot)}
                          onDrop={drop({ day: key, hour })}
                        >
                          <ul className="day-events">{here.map((record) => chip(record, key))}</ul>
                        </td>
                      );
                    })}
                  </tr>
                ))
              )}
            </tbody>
          </table>
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
        onMove={(record, day) => reschedule(record, { day })}
        onEdit={(record) => {
          setMenu(undefined);
          setEditing(record);
        }}
        onClose={() => setMenu(undefined)}
      />
    </section>
  );
}
