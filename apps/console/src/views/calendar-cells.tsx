import type { MouseEvent } from 'react';
import type { DataRecord } from '../data-models/types';
import { dayKey } from './calendar-grid';
import { longDay, startTime } from './event-format';
import type { CalendarFields } from './reschedule';
import type { EventDrag } from './use-reschedule';

/** What the month and week grids share: the events by day, the permissions, and what a click or a drag does. */
export interface CalendarGridProps {
  anchor: Date;
  title: string;
  cal: CalendarFields;
  /** Events by local day (`YYYY-MM-DD`), each day's in start order. */
  byDay: ReadonlyMap<string, DataRecord[]>;
  today: string;
  /** The day or hour slot an event is dragged over. */
  dropDay: string | null;
  mayCreate: boolean;
  mayEdit: boolean;
  drag: EventDrag;
  onCreate(day: Date, hour?: number): void;
  onOpen(record: DataRecord): void;
}

/** A click on a day's free space (not on an event or a button) makes a record there. */
export function clickFree(grid: CalendarGridProps, day: Date, hour?: number) {
  return (event: MouseEvent<HTMLElement>) => {
    if ((event.target as HTMLElement).closest('button, a')) return;
    if (grid.mayCreate) grid.onCreate(day, hour);
  };
}

/** An event on a day: its start time where it starts, "continued" on the days after. */
export function EventChip({ grid, record, day }: { grid: CalendarGridProps; record: DataRecord; day: string }) {
  const { cal } = grid;
  const start = record.data[cal.startKey];
  const startsHere = typeof start === 'string' && (cal.type === 'DATE' ? start : dayKey(new Date(start))) === day;
  const time = startsHere ? startTime(record, cal) : '';
  return (
    <li>
      <button
        type="button"
        className={`event-chip${startsHere ? '' : ' event-chip-continued'}`}
        draggable={grid.mayEdit}
        onDragStart={grid.drag.start(record)}
        onDragEnd={grid.drag.end}
        onClick={() => grid.onOpen(record)}
        aria-label={`${record.title || 'Untitled'}${time ? `, ${time}` : ''}${startsHere ? '' : ', continued'}`}
        data-event-id={record.id}
      >
        {time ? <span className="event-time">{time}</span> : null} {record.title || 'Untitled'}
      </button>
    </li>
  );
}

export function DayEvents({ grid, records, day }: { grid: CalendarGridProps; records: readonly DataRecord[]; day: string }) {
  return (
    <ul className="day-events">
      {records.map((record) => (
        <EventChip key={record.id} grid={grid} record={record} day={day} />
      ))}
    </ul>
  );
}

/** A day's number or name: a button that makes a record on it, for those who may create. */
export function DayButton({ grid, day, text }: { grid: CalendarGridProps; day: Date; text: string }) {
  return grid.mayCreate ? (
    <button type="button" className="day-number" aria-label={`New record on ${longDay.format(day)}`} onClick={() => grid.onCreate(day)}>
      {text}
    </button>
  ) : (
    <span className="day-number">{text}</span>
  );
}
