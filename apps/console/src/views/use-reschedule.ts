import { useRef, useState, type DragEvent } from 'react';
import type { DataField, DataRecord } from '../data-models/types';
import { checkRecordData } from '../records/record-form';
import { useSignedIn } from '../session/session-context';
import { longDay } from './event-format';
import { rescheduledValues, type CalendarFields, type RescheduleTarget } from './reschedule';

interface ShownEvents {
  replace(record: DataRecord): void;
  reload(): Promise<void>;
}

/**
 * Moving calendar events to another day (and hour), by drag and drop or from the event's dialog.
 * The new values are checked with the record rules before anything is sent, shown at once, and
 * put back when the server refuses.
 */
export function useReschedule(cal: CalendarFields | undefined, fields: DataField[], events: ShownEvents, mayEdit: boolean) {
  const { rpc } = useSignedIn();
  const [moveError, setMoveError] = useState<unknown>();
  const [announcement, setAnnouncement] = useState('');
  const [dropDay, setDropDay] = useState<string | null>(null);
  const dragged = useRef<DataRecord | null>(null);

  /** Throws the browser's or the server's refusal, after putting the event back. */
  const reschedule = async (record: DataRecord, target: RescheduleTarget) => {
    if (!cal) return;
    const values = rescheduledValues(cal, record.data, target);
    if (!values) return;
    const checked = checkRecordData(fields, values, 'update');
    if (checked.errors.length > 0) throw new Error(checked.errors.map((error) => `${error.field}: ${error.message}`).join(' '));
    events.replace({ ...record, data: { ...record.data, ...values } });
    try {
      events.replace(await rpc.call('records.update', { id: record.id, data: values }));
      setAnnouncement(`${record.title} moved to ${longDay.format(new Date(`${target.day}T12:00:00`))}.`);
    } catch (failure) {
      events.replace(record);
      throw failure;
    }
    void events.reload();
  };

  const drag = {
    start: (record: DataRecord) => (event: DragEvent<HTMLElement>) => {
      event.dataTransfer.setData('text/plain', record.id);
      event.dataTransfer.effectAllowed = 'move';
      dragged.current = record;
      setMoveError(undefined);
    },
    over: (day: string) => (event: DragEvent<HTMLElement>) => {
      if (!dragged.current || !mayEdit) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = 'move';
      if (dropDay !== day) setDropDay(day);
    },
    drop: (target: RescheduleTarget) => (event: DragEvent<HTMLElement>) => {
      event.preventDefault();
      const record = dragged.current;
      dragged.current = null;
      setDropDay(null);
      if (record) reschedule(record, target).catch(setMoveError);
    },
    end: () => {
      dragged.current = null;
      setDropDay(null);
    },
  };

  return { reschedule, drag, dropDay, moveError, announcement };
}

export type EventDrag = ReturnType<typeof useReschedule>['drag'];
