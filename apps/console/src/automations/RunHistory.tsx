import { formatDateTime } from '../app/format';
import { ErrorNotice } from '../components/ErrorNotice';
import { runDuration, type useRunHistory } from './use-run-history';

/** The run log of one automation: each run's trigger, status, time, and on demand its actions and input. */
export function RunHistory({ runs }: { runs: ReturnType<typeof useRunHistory> }) {
  const { refresh } = runs;
  return (
    <>
      <div className="page-header section">
        <h2>Run history</h2>
        <button type="button" className="button" onClick={() => void refresh()} disabled={runs.loading}>
          Refresh
        </button>
      </div>
      <ErrorNotice error={runs.error} />
      {runs.items.length === 0 ? (
        runs.loading ? <p role="status">Loading…</p> : <p className="empty">No runs yet.</p>
      ) : (
        <div className="table-wrap" role="region" aria-label="Runs" tabIndex={0}>
          <table>
            <caption className="visually-hidden">Runs, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Queued</th>
                <th scope="col">Trigger</th>
                <th scope="col">Status</th>
                <th scope="col">Duration</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {runs.items.map((run) => (
                <tr key={run.id}>
                  <th scope="row">{formatDateTime(run.queuedAt)}</th>
                  <td>{run.trigger}</td>
                  <td>
                    <span className={`badge badge-${run.status}`}>{run.status}</span>
                  </td>
                  <td>{runDuration(run)}</td>
                  <td className="wrap">
                    {run.error ? <p className="field-error">{run.error}</p> : null}
                    <details>
                      <summary>Actions and input</summary>
                      <ol className="compact-list">
                        {run.actions.map((result, index) => (
                          <li key={index}>
                            {result.type}: {result.status}
                            {result.recordId ? (
                              <>
                                {' '}
                                (record <code>{result.recordId}</code>)
                              </>
                            ) : null}
                            {result.notified !== undefined ? ` (${result.notified} notified)` : ''}
                            {result.error ? ` — ${result.error.message}` : ''}
                          </li>
                        ))}
                      </ol>
                      <pre className="excerpt">{JSON.stringify(run.input, null, 2)}</pre>
                      <p className="field-hint">
                        Run <code>{run.id}</code>
                        {run.eventType ? (
                          <>
                            {' '}
                            · event <code>{run.eventType}</code>
                          </>
                        ) : null}
                        {run.chainDepth > 1 ? ` · chain depth ${run.chainDepth}` : ''}
                      </p>
                    </details>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {runs.hasMore ? (
        <p>
          <button type="button" className="button" onClick={() => void runs.loadMore()} disabled={runs.loading}>
            Load older runs
          </button>
        </p>
      ) : null}
    </>
  );
}
