import { formatDateTime } from '../app/format';
import { Link } from '../app/router';
import { useKeysetPages } from '../api/use-keyset-pages';
import { ErrorNotice } from '../components/ErrorNotice';
import { EmptyState } from '../components/EmptyState';
import { describeTrigger } from '../automations/trigger-form';

const LIST_INPUT = { limit: 50 };

/** The organization's automations: one trigger and a list of actions each, run as their owner. */
export default function AutomationsPage() {
  const automations = useKeysetPages('automations.list', LIST_INPUT);
  return (
    <section aria-labelledby="page-title">
      <div className="page-header">
        <h1 id="page-title">Automations</h1>
        <Link className="button button-primary" to="/automations/new">
          New automation
        </Link>
      </div>
      <p className="page-intro">
        An automation runs its actions when its trigger fires: an event, a schedule or a call to its hook. Runs act as its owner,
        with the owner’s permissions at that moment.
      </p>
      <ErrorNotice error={automations.error} />
      {automations.items.length === 0 ? (
        automations.loading ? (
          <p role="status">Loading…</p>
        ) : automations.error ? null : (
          <EmptyState
            title="No automations yet."
            actions={
              <Link className="button" to="/automations/new">
                Create your first automation
              </Link>
            }
          >
            Have records created or changed, or people notified, when a record changes, on a schedule, or when a program calls a hook.
          </EmptyState>
        )
      ) : (
        <div className="table-wrap" role="region" aria-label="Automations" tabIndex={0}>
          <table>
            <caption className="visually-hidden">Automations</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Trigger</th>
                <th scope="col">Actions</th>
                <th scope="col">Status</th>
                <th scope="col">Next run</th>
              </tr>
            </thead>
            <tbody>
              {automations.items.map((automation) => (
                <tr key={automation.id}>
                  <th scope="row">
                    <Link to={`/automations/${encodeURIComponent(automation.id)}`}>{automation.name}</Link>
                  </th>
                  <td className="wrap">
                    <code>{describeTrigger(automation.trigger)}</code>
                  </td>
                  <td>{automation.actions.map((action) => action.type).join(', ')}</td>
                  <td>
                    <span className={`badge badge-${automation.enabled ? 'active' : 'disabled'}`}>{automation.enabled ? 'enabled' : 'disabled'}</span>
                  </td>
                  <td>{automation.trigger.type === 'schedule' ? formatDateTime(automation.trigger.nextRunAt) : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {automations.hasMore ? (
        <p>
          <button type="button" className="button" onClick={() => void automations.loadMore()} disabled={automations.loading}>
            Load more
          </button>
        </p>
      ) : null}
    </section>
  );
}
