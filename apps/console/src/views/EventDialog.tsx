import { useEffect, useState, type FormEvent } from 'react';
import { Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import type { DataRecord } from '../data-models/types';
import { TextField } from '../forms/fields';
import { dayKey } from './calendar-grid';
import { formatWhen } from './event-format';
import type { CalendarFields } from './reschedule';

export interface EventDialogProps {
  record?: DataRecord;
  fields: CalendarFields;
  mayEdit: boolean;
  /** Moves the event to the day (keeping its time and duration); throws what refused it. */
  onMove: (record: DataRecord, day: string) => Promise<void>;
  onEdit: (record: DataRecord) => void;
  onClose: () => void;
}

/** An event's menu: when it is, "Move to date" (the keyboard's way to reschedule), and the record form. */
export function EventDialog({ record, fields, mayEdit, onMove, onEdit, onClose }: EventDialogProps) {
  const [day, setDay] = useState('');
  const [error, setError] = useState<unknown>();
  const [dayError, setDayError] = useState<string>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!record) return;
    const start = record.data[fields.startKey];
    setDay(typeof start !== 'string' ? '' : fields.type === 'DATE' ? start : dayKey(new Date(start)));
    setError(undefined);
    setDayError(undefined);
  }, [record, fields]);

  const move = async (event: FormEvent) => {
    event.preventDefault();
    if (!record) return;
    if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) {
      setDayError('Choose a date');
      return;
    }
    setBusy(true);
    setError(undefined);
    setDayError(undefined);
    try {
      await onMove(record, day);
      onClose();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open={record !== undefined}
      title={record?.title || 'Event'}
      onClose={onClose}
      busy={busy}
      footer={
        <>
          <button type="button" className="button" onClick={onClose} disabled={busy}>
            Close
          </button>
          {mayEdit && record ? (
            <button type="button" className="button" onClick={() => onEdit(record)} disabled={busy}>
              Edit record
            </button>
          ) : null}
        </>
      }
    >
      {record ? <p>{formatWhen(record, fields)}</p> : null}
      {mayEdit ? (
        <form id="move-event-form" className="inline-controls move-event" onSubmit={(event) => void move(event)} noValidate>
          <TextField
            label="Move to date"
            hint={fields.type === 'DATETIME' ? 'Keeps its time of day' + (fields.endKey ? ' and its duration.' : '.') : fields.endKey ? 'Keeps its length in days.' : undefined}
            type="date"
            value={day}
            onChange={setDay}
            error={dayError}
            required
            data-autofocus
          />
          <button type="submit" className="button button-primary" disabled={busy}>
            {busy ? 'Moving…' : 'Move'}
          </button>
        </form>
      ) : null}
      <ErrorNotice error={error} />
    </Dialog>
  );
}
