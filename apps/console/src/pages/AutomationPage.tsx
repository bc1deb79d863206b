import '../automations/automations.css';
import { useRef, useState } from 'react';
import type { PageProps } from '../app/pages';
import { Link, navigate } from '../app/router';
import { useRpcQuery } from '../api/use-rpc-query';
import type { AutomationWithSecret } from '../api/automation-types';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { AutomationFacts } from '../automations/AutomationFacts';
import { HookSecretDialog } from '../automations/HookSecretDialog';
import { RunHistory } from '../automations/RunHistory';
import { RunNowDialog } from '../automations/RunNowDialog';
import { useRunHistory } from '../automations/use-run-history';
import { useSignedIn } from '../session/session-context';

/** One automation: what it does, run it now, enable or disable, re-key, delete, and its run history. */
export default function AutomationPage({ params }: PageProps) {
  const id = params.id as string;
  const { rpc, me } = useSignedIn();
  const automation = useRpcQuery('automations.get', { id });
  const runs = useRunHistory(id);
  const { refresh } = runs;
  const [running, setRunning] = useState(false);
  const [confirming, setConfirming] = useState<'delete' | 'rotate'>();
  const [rekeyed, setRekeyed] = useState<AutomationWithSecret>();
  // Shown once the confirmation has closed, so focus returns to the button that started it all.
  const pendingSecret = useRef<AutomationWithSecret | undefined>(undefined);
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState('');

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
      <AutomationFacts automation={shown} myUserId={me.user.id} />

      <RunHistory runs={runs} />

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
          pendingSecret.current = await rpc.call('automations.rotateSecret', { id });
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
