import { useEffect, useState, type FormEvent } from 'react';
import { fieldErrorsOf } from '../api/rpc-error';
import type { EndpointOrdering, EndpointWithSecret, WebhookEndpoint } from '../api/webhook-types';
import { Dialog } from '../components/Dialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { SecretOnce } from '../components/SecretOnce';
import { RadioGroup, SelectField, TextField, type Option } from '../forms/fields';
import { useSignedIn } from '../session/session-context';
import { EMPTY_ENDPOINT_FORM, SIGNING_OPTIONS, checkEndpointForm, type EndpointFormValues } from './endpoint-form';
import { isNeverDelivered } from './subscription-patterns';
import { SubscriptionPicker } from './SubscriptionPicker';
import { useEventTypes, useModelKeys } from './use-catalog';
import { FormFooter } from '../components/FormFooter';

const ORDERING_OPTIONS: Option<EndpointOrdering>[] = [
  { value: 'none', label: 'As soon as possible', description: 'Several at once; a retry may arrive after a later change.' },
  {
    value: 'per-record',
    label: 'One at a time, in order',
    description: 'A record’s deliveries go out in commit order; a failing one holds back the later ones about that record.',
  },
];

/** The server's `subscriptions/3` refusals all belong to the picker. */
function formErrorsOf(failure: unknown): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const [field, message] of Object.entries(fieldErrorsOf(failure))) {
    const key = field.startsWith('subscriptions') ? 'subscriptions' : field;
    errors[key] = errors[key] ? `${errors[key]}; ${message}` : message;
  }
  return errors;
}

/**
 * Creates an endpoint (then shows its signing secret once) or, given `endpoint`, changes its URL,
 * description and subscriptions.
 */
export function EndpointDialog({ open, endpoint, onClose }: { open: boolean; endpoint?: WebhookEndpoint; onClose: (changed: boolean) => void }) {
  const { rpc } = useSignedIn();
  const catalog = useEventTypes();
  const models = useModelKeys();
  const [values, setValues] = useState<EndpointFormValues>(EMPTY_ENDPOINT_FORM);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<EndpointWithSecret>();

  useEffect(() => {
    if (open) {
      setValues(
        endpoint
          ? { url: endpoint.url, description: endpoint.description, subscriptions: endpoint.subscriptions, signing: endpoint.signing, ordering: endpoint.ordering }
          : EMPTY_ENDPOINT_FORM,
      );
    }
  }, [open, endpoint]);

  const set = <K extends keyof EndpointFormValues>(key: K, value: EndpointFormValues[K]) => setValues((current) => ({ ...current, [key]: value }));
  const close = (changed: boolean) => {
    setErrors({});
    setError(undefined);
    setCreated(undefined);
    onClose(changed);
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const checked = checkEndpointForm(values, catalog.known);
    setErrors(checked.errors);
    if (!checked.input) return;
    setBusy(true);
    setError(undefined);
    try {
      if (endpoint) {
        // The scheme changes with a rotation of the secret, never on its own.
        const { signing: _signing, ...changes } = checked.input;
        await rpc.call('webhooks.endpoints.update', { id: endpoint.id, ...changes, description: changes.description ?? '' });
        close(true);
      } else {
        setCreated(await rpc.call('webhooks.endpoints.create', checked.input));
      }
    } catch (failure) {
      setError(failure);
      setErrors(formErrorsOf(failure));
    } finally {
      setBusy(false);
    }
  };

  if (created) {
    return (
      <Dialog open={open} title="Your endpoint’s signing secret" onClose={() => close(true)} footer={<button type="button" className="button button-primary" onClick={() => close(true)}>Done</button>}>
        <SecretOnce label={`Signing secret of ${created.endpoint.url}`} secret={created.secret} copyLabel="Copy secret">
          {created.endpoint.signing === 'standard-webhooks' ? (
            <>
              Your receiver checks each delivery’s <code>webhook-signature</code> with it, as any Standard Webhooks library does.
            </>
          ) : (
            <>
              Your receiver checks each delivery’s <code>Webhook-Signature</code> with it.
            </>
          )}{' '}
          If you lose it, rotate the secret.
        </SecretOnce>
      </Dialog>
    );
  }
  const formId = endpoint ? 'edit-endpoint-form' : 'create-endpoint-form';
  return (
    <Dialog
      open={open}
      title={endpoint ? 'Edit endpoint' : 'Add endpoint'}
      onClose={() => close(false)}
      busy={busy}
      footer={<FormFooter formId={formId} busy={busy} onCancel={() => close(false)} label={endpoint ? 'Save endpoint' : 'Add endpoint'} busyLabel="Saving…" />}
    >
      <form id={formId} onSubmit={(event) => void submit(event)} noValidate>
        <ErrorNotice error={error} />
        <ErrorNotice error={catalog.error} />
        <TextField
          label="URL"
          type="url"
          hint="Where deliveries are POSTed: https, or http to a private host in development."
          value={values.url}
          onChange={(url) => set('url', url)}
          error={errors.url}
          maxLength={2048}
          required
          data-autofocus
        />
        <TextField label="Description" hint="What receives it, e.g. “ERP orders”" value={values.description} onChange={(description) => set('description', description)} error={errors.description} maxLength={500} />
        <SubscriptionPicker types={catalog.types.filter((type) => !isNeverDelivered(type))} models={models} value={values.subscriptions} onChange={(subscriptions) => set('subscriptions', subscriptions)} error={errors.subscriptions} />
        <p className="field-hint">
          One model’s record events arrive under their general type: subscribed to <code>data-models.deals.record-created</code>, the receiver gets{' '}
          <code>&quot;type&quot;: &quot;data-models.record-created&quot;</code> with the model in <code>payload.modelKey</code> and the per-model name in{' '}
          <code>subscriptionAliases</code>. The delivery log shows both.
        </p>
        {endpoint ? (
          <p className="field-hint">
            Signed as {SIGNING_OPTIONS.find((option) => option.value === endpoint.signing)?.label}. Rotating the secret can change how deliveries are signed.
          </p>
        ) : (
          <SelectField
            label="Signature"
            hint="How the receiver verifies a delivery: this platform’s Webhook-Signature header, or the Standard Webhooks headers (webhook-id, webhook-signature) that its libraries check. A rotation of the secret can change it later."
            value={values.signing}
            options={SIGNING_OPTIONS}
            onChange={(signing) => set('signing', signing)}
          />
        )}
        <RadioGroup
          label="Deliveries about one record"
          name={`${formId}-ordering`}
          value={values.ordering}
          options={ORDERING_OPTIONS}
          onChange={(ordering) => set('ordering', ordering)}
        />
      </form>
    </Dialog>
  );
}
