import '../views/views.css';
import { useState } from 'react';
import { formatDateTime } from '../app/format';
import { Link, navigate } from '../app/router';
import type { Items } from '../api/types';
import { useRpcQuery } from '../api/use-rpc-query';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { useSignedIn } from '../session/session-context';
import { CalendarDialog } from '../views/CalendarDialog';
import type { Calendar } from '../views/types';

/** The organization's calendars: each shows a model's records on the days of one of its date fields. */
export default function CalendarsPage() {
  const { rpc, permissions } = useSignedIn();
  const calendars = useRpcQuery<Items<Calendar>>('calendars.list');
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<Calendar>();
  const mayManage = permissions.has('data-models.manage');

  return (
    <section aria-labelledby="page-title">
      <div className="page-header">
        <h1 id="page-title">Calendars</h1>
        {mayManage ? (
          <button type="button" className="button button-primary" onClick={() => setCreating(true)}>
            Create calendar
          </button>
        ) : null}
      </div>
      <p className="page-intro">
        A calendar shows a data model’s records on the days of one of its date fields, from start to end when it has an end field. Moving an event changes those fields.
      </p>
      <ErrorNotice error={calendars.error} />
      {calendars.data ? (
        calendars.data.items.length === 0 ? (
          <p className="empty">No calendars yet.</p>
        ) : (
          <div className="table-wrap" role="region" aria-label="Calendars" tabIndex={0}>
            <table>
              <caption className="visually-hidden">Calendars</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Model</th>
                  <th scope="col">Starts at</th>
                  <th scope="col">Ends at</th>
                  <th scope="col">Created</th>
                  {mayManage ? <th scope="col">Actions</th> : null}
                </tr>
              </thead>
              <tbody>
                {calendars.data.items.map((calendar) => (
                  <tr key={calendar.id}>
                    <th scope="row">
                      <Link to={`/calendars/${calendar.id}`}>{calendar.name}</Link>
                    </th>
                    <td>
                      <code>{calendar.modelKey}</code>
                    </td>
                    <td>
                      <code>{calendar.startFieldKey}</code>
                    </td>
                    <td>{calendar.endFieldKey ? <code>{calendar.endFieldKey}</code> : '—'}</td>
                    <td>{formatDateTime(calendar.createdAt)}</td>
                    {mayManage ? (
                      <td>
                        <button type="button" className="button button-small button-danger-quiet" onClick={() => setDeleting(calendar)} aria-label={`Delete ${calendar.name}`}>
                          Delete
                        </button>
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )
      ) : calendars.loading ? (
        <p role="status">Loading…</p>
      ) : null}
      <CalendarDialog
        open={creating}
        onClose={(created) => {
          setCreating(false);
          if (created) navigate(`/calendars/${created.id}`);
        }}
      />
      <ConfirmDialog
        open={deleting !== undefined}
        title={`Delete ${deleting?.name ?? 'calendar'}?`}
        confirmLabel="Delete calendar"
        danger
        onConfirm={async () => {
          if (!deleting) return;
          await rpc.call('calendars.delete', { id: deleting.id });
          await calendars.reload();
        }}
        onClose={() => setDeleting(undefined)}
      >
        <p>The calendar goes. The records stay in their model.</p>
      </ConfirmDialog>
    </section>
  );
}
