import { useEffect, useMemo, useRef, useState } from 'react';
import type { PageProps } from '../app/pages';
import { formatDateTime } from '../app/format';
import { Link, navigate } from '../app/router';
import { useKeysetPages } from '../api/use-keyset-pages';
import { useRpcQuery } from '../api/use-rpc-query';
import type { Automation, AutomationRun, AutomationWithSecret } from '../api/automation-types';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { HookSecretDialog } from '../automations/HookSecretDialog';
import { RunNowDialog } from '../automations/RunNowDialog';
import { describeTrigger } from '../automations/trigger-form';
import { useSignedIn } from '../session/session-context';

const RUN_PAGE_SIZE = 25;
const QUEUED_REFRESH_MS = 2000;

function duration(run: AutomationRun): string {
  if (!run.startedAt || !run.finishedAt) return '—';
  return `${Math.max(0, Date.parse(run.finishedAt) - Date.parse(run.startedAt))} ms`;
}

/** One automation: what it does, run it now, enable or disable, re-key, delete, and its run history. */
export default function AutomationPage({ params }: PageProps) {
  const id = params.id as string;
  const { rpc, me } = useSignedIn();
  const automation = useRpcQuery<Automation>('automations.get', { id });
  const runsInput = useMemo(() => ({ automationId: id, limit: RUN_PAGE_SIZE }), [id]);
  const runs = useKeysetPages<AutomationRun>('automations.runs.list', runsInput);
  const [running, setRunning] = useState(false);
  const [confirming, setConfirming] = useState<'delete' | 'rotate'>();
  const [rekeyed, setRekeyed] = useState<AutomationWithSecret>();
  // Shown once the confirmation has closed, so focus returns to the button that started it all.
  const pendingSecret = useRef<AutomationWithSecret | undefined>(undefined);
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState('');

  const { refresh } = runs;
  const anyQueued = runs.items.some((run) => run.status === 'queued');
  const olderPagesShown = runs.items.length > RUN_PAGE_SIZE;
  useEffect(() => {
    if (!anyQueued || olderPagesShown) return;
    const timer = setTimeout(() => void refresh(), QUEUED_REFRESH_MS);
    return () => clearTimeout(timer);
  }, [anyQueued, olderPagesShown, refresh, runs.items]);

  if (automation.error && !automation.data) return <ErrorNotice error={automation.error} />;
  if (!automation.data) return <p role="status">Loading…</p>;
  const shown = automation.data;

  const setEnabled = async (enabled: boolean) => {
    setError(undefined);
    try {
      await rpc.call('automations.update', { id, enabled });
      await automation.reload();
    } catch (failure) {
      setError(failure);
    }
  };

  return (
    <section aria-labelledby="page-title">
      <p>
        <Link to="/automations">← Automations</Link>
      </p>
      <div className="page-header">
        <h1 id="page-title">{shown.name}</h1>
        <div className="button-row">
          <button type="button" className="button button-primary" onClick={() => setRunning(true)} disabled={!shown.enabled} title={shown.enabled ? undefined : 'Enable it first'}>
            Run now
          </button>
          <Link className="button" to={`/automations/${encodeURIComponent(id)}/edit`}>
            Edit
          </Link>
          <button type="button" className="button" onClick={() => void setEnabled(!shown.enabled)}>
            {shown.enabled ? 'Disable' : 'Enable'}
          </button>
          {shown.trigger.type === 'http' ? (
            <button type="button" className="button" onClick={() => setConfirming('rotate')}>
              New hook secret
            </button>
          ) : null}
          <button type="button" className="button button-danger-quiet" onClick={() => setConfirming('delete')}>
            Delete
          </button>
        </div>
      </div>
      <ErrorNotice error={error} />
      <p role="status" className="copy-status">
        {notice}
      </p>
      <dl className="facts">
        <dt>Status</dt>
        <dd>
          <span className={`badge badge-${shown.enabled ? 'active' : 'disabled'}`}>{shown.enabled ? 'enabled' : 'disabled'}</span>
        </dd>
        <dt>Trigger</dt>
        <dd>
          <code>{describeTrigger(shown.trigger)}</code>
          {shown.trigger.type === 'schedule' ? ` · next ${formatDateTime(shown.trigger.nextRunAt)}` : ''}
          {shown.trigger.type === 'http' ? (
            <span className="choice-description">
              <code className="url">POST {location.origin}/hooks/automation/{shown.id}</code>
            </span>
          ) : null}
        </dd>
        <dt>Actions</dt>
        <dd>
          <ol className="compact-list">
            {shown.actions.map((action, index) => (
              <li key={index}>
                {action.type}
                {action.model ? ` in ${action.model}` : ''}
                {action.type === 'notify' ? `: ${action.title ?? ''}` : ''}
              </li>
            ))}
          </ol>
        </dd>
        <dt>Runs as</dt>
        <dd>{shown.ownerId === me.user.id ? 'You' : <code>{shown.ownerId}</code>}</dd>
        <dt>Rate</dt>
        <dd>at most {shown.maxRunsPerMinute} runs a minute</dd>
      </dl>

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
                  <td>{duration(run)}</td>
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

      <RunNowDialog
        automation={shown}
        open={running}
        onClose={(runId) => {
          setRunning(false);
          if (runId) {
            setNotice('Run queued: it appears below and updates when it ends.');
            void refresh();
          }
        }}
      />
      <ConfirmDialog
        open={confirming === 'rotate'}
        title="Replace the hook secret?"
        confirmLabel="Replace secret"
        danger
        onConfirm={async () => {
          pendingSecret.current = await rpc.call<AutomationWithSecret>('automations.rotateSecret', { id });
          await automation.reload();
        }}
        onClose={() => {
          setConfirming(undefined);
          setRekeyed(pendingSecret.current);
          pendingSecret.current = undefined;
        }}
      >
        <p>The current secret stops working at once; programs calling the hook need the new one, shown once.</p>
      </ConfirmDialog>
      <HookSecretDialog automation={rekeyed} onClose={() => setRekeyed(undefined)} />
      <ConfirmDialog
        open={confirming === 'delete'}
        title={`Delete ${shown.name}?`}
        confirmLabel="Delete automation"
        danger
        onConfirm={async () => {
          await rpc.call('automations.delete', { id });
          navigate('/automations');
        }}
        onClose={() => setConfirming(undefined)}
      >
        <p>Its run history goes with it and queued runs are dropped. This cannot be undone.</p>
      </ConfirmDialog>
    </section>
  );
}
