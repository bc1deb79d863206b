import { useEffect, useState, type FormEvent } from 'react';
import type { EndpointSigning, EndpointWithSecret, WebhookEndpoint } from '../api/webhook-types';
import { Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { SecretOnce } from '../components/SecretOnce';
import { SelectField, TextField } from '../forms/fields';
import { useSignedIn } from '../session/session-context';
import { SIGNING_OPTIONS, checkOverlap } from './endpoint-form';
import { FormFooter } from '../components/FormFooter';

/** Replaces an endpoint's signing secret, the old one optionally signing on for an overlap; the new one is shown once. */
export function RotateSecretDialog({ endpoint, onClose }: { endpoint: WebhookEndpoint | undefined; onClose: (rotated: boolean) => void }) {
  const { rpc } = useSignedIn();
  const [overlap, setOverlap] = useState('3600');
  const [overlapError, setOverlapError] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [rotated, setRotated] = useState<EndpointWithSecret>();
  const [signing, setSigning] = useState<EndpointSigning>('contract');
  useEffect(() => {
    if (endpoint) setSigning(endpoint.signing);
  }, [endpoint]);
  const switching = endpoint !== undefined && signing !== endpoint.signing;

  const close = () => {
    const done = rotated !== undefined;
    setOverlap('3600');
    setOverlapError(undefined);
    setError(undefined);
    setRotated(undefined);
    onClose(done);
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!endpoint) return;
    // A receiver verifies one scheme: a switch replaces the secret at once.
    const checked = switching ? { seconds: 0 } : checkOverlap(overlap);
    setOverlapError(checked.error);
    if (checked.seconds === undefined) return;
    setBusy(true);
    setError(undefined);
    try {
      setRotated(
        await rpc.call('webhooks.endpoints.rotateSecret', {
          id: endpoint.id,
          overlapSeconds: checked.seconds,
          ...(switching ? { signing } : {}),
        }),
      );
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  if (rotated) {
    return (
      <Dialog open title="The new signing secret" onClose={close} footer={<button type="button" className="button button-primary" onClick={close}>Done</button>}>
        <SecretOnce label={`New signing secret of ${rotated.endpoint.url}`} secret={rotated.secret} copyLabel="Copy secret">
          {rotated.endpoint.previousSecretExpiresAt
            ? 'Until the overlap ends, deliveries carry both signatures: switch your receiver to this secret before then.'
            : 'The old secret no longer signs anything.'}
        </SecretOnce>
      </Dialog>
    );
  }
  return (
    <Dialog
      open={endpoint !== undefined}
      title="Rotate signing secret"
      onClose={close}
      busy={busy}
      footer={<FormFooter formId="rotate-secret-form" busy={busy} onCancel={close} label="Rotate secret" busyLabel="Rotating…" />}
    >
      <form id="rotate-secret-form" onSubmit={(event) => void submit(event)} noValidate>
        <p>
          A new secret for <strong>{endpoint?.url}</strong>, shown once.
        </p>
        <ErrorNotice error={error} />
        <TextField
          label="Overlap (seconds)"
          hint={
            switching
              ? 'None when the signature changes: the receiver checks one scheme, so the old secret stops signing at once.'
              : 'How long the old secret keeps signing beside the new one, so your receiver can switch without missing a delivery: 0 for none, 3600 an hour, up to 604800 (7 days).'
          }
          inputMode="numeric"
          value={switching ? '0' : overlap}
          onChange={setOverlap}
          error={overlapError}
          disabled={switching}
          data-autofocus
        />
        <SelectField label="Signature" hint="How the receiver verifies deliveries from now on." value={signing} options={SIGNING_OPTIONS} onChange={setSigning} />
      </form>
    </Dialog>
  );
}
