import { useEffect, useState, type FormEvent } from 'react';
import { fieldErrorsOf } from '../api/rpc-error';
import type { WebhookEndpoint } from '../api/webhook-types';
import { Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { TextField } from '../forms/fields';
import { useSignedIn } from '../session/session-context';
import { checkWindow, isoToLocalDateTime } from './endpoint-form';
import { FormFooter } from '../components/FormFooter';

const DAY_MS = 24 * 3600 * 1000;

/** Re-queues an endpoint's failed deliveries created in a window (`webhooks.endpoints.recover`). */
export function RecoverDialog({ endpoint, onClose }: { endpoint: WebhookEndpoint | undefined; onClose: (requeued: boolean) => void }) {
  const { rpc } = useSignedIn();
  const [since, setSince] = useState('');
  const [until, setUntil] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [requeued, setRequeued] = useState<number>();

  useEffect(() => {
    if (endpoint) setSince(isoToLocalDateTime(new Date(Date.now() - DAY_MS)));
  }, [endpoint]);

  const close = () => {
    const done = requeued !== undefined && requeued > 0;
    setUntil('');
    setErrors({});
    setError(undefined);
    setRequeued(undefined);
    onClose(done);
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!endpoint) return;
    const window = checkWindow(since, until, { sinceRequired: true });
    setErrors(window.errors);
    if (!window.since) return;
    setBusy(true);
    setError(undefined);
    try {
      const answer = await rpc.call('webhooks.endpoints.recover', { id: endpoint.id, since: window.since, ...(window.until ? { until: window.until } : {}) });
      setRequeued(answer.requeued);
    } catch (failure) {
      setError(failure);
      setErrors(fieldErrorsOf(failure));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open={endpoint !== undefined}
      title="Re-send failed deliveries"
      onClose={close}
      busy={busy}
      footer={
        requeued !== undefined ? (
          <button type="button" className="button button-primary" onClick={close}>
            Done
          </button>
        ) : (
          <FormFooter formId="recover-form" busy={busy} onCancel={close} label="Re-send failed deliveries" busyLabel="Re-sending…" />
        )
      }
    >
      {requeued !== undefined ? (
        <p role="status" data-autofocus tabIndex={-1}>
          {requeued === 0 ? 'No failed deliveries in that window: nothing was queued.' : `${requeued} failed ${requeued === 1 ? 'delivery was' : 'deliveries were'} queued again.`}
        </p>
      ) : (
        <form id="recover-form" onSubmit={(event) => void submit(event)} noValidate>
          <p>
            Every <strong>failed</strong> delivery to <strong>{endpoint?.url}</strong> created in this window is sent again, with its
            own idempotency key, after you have fixed the receiver.
          </p>
          <ErrorNotice error={error} />
          <TextField label="Since" type="datetime-local" hint="In your time zone; at most the retention period (30 days by default) ago." value={since} onChange={setSince} error={errors.since} required data-autofocus />
          <TextField label="Until" type="datetime-local" hint="Leave empty for up to now." value={until} onChange={setUntil} error={errors.until} />
        </form>
      )}
    </Dialog>
  );
}
