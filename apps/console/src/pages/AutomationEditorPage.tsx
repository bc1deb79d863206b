import { useEffect, useMemo, useState, type FormEvent } from 'react';
import type { PageProps } from '../app/pages';
import { Link, navigate } from '../app/router';
import { fieldErrorsOf } from '../api/rpc-error';
import { useRpcQuery } from '../api/use-rpc-query';
import type { Automation, AutomationWithSecret } from '../api/automation-types';
import type { Items, Role } from '../api/types';
import { ErrorNotice } from '../components/ErrorNotice';
import { TextField } from '../forms/fields';
import { ActionEditor } from '../automations/ActionEditor';
import { MAX_ACTIONS, emptyAction, type ActionFormValues } from '../automations/action-form';
import { automationFormOf, checkAutomationForm, emptyAutomationForm, type AutomationFormValues } from '../automations/automation-form';
import { HookSecretDialog } from '../automations/HookSecretDialog';
import { TriggerEditor } from '../automations/TriggerEditor';
import { useSignedIn } from '../session/session-context';
import { isNeverDelivered } from '../webhooks/subscription-patterns';
import { useEventTypes, useModelKeys } from '../webhooks/use-catalog';

/** The server names deep paths (`actions[0].data.title`); the form shows them on the action's field. */
export function formErrorsOf(failure: unknown): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const [field, message] of Object.entries(fieldErrorsOf(failure))) {
    const action = /^(actions\[\d+\])(?:\.(\w+))?/.exec(field);
    const key = action ? `${action[1]}${action[2] ? `.${action[2]}` : ''}` : field;
    errors[key] = errors[key] ? `${errors[key]}; ${message}` : message;
  }
  return errors;
}

/** Creates an automation (`/automations/new`) or changes one (`/automations/:id/edit`). */
export default function AutomationEditorPage({ params }: PageProps) {
  const id = params.id;
  const { rpc } = useSignedIn();
  const existing = useRpcQuery<Automation>('automations.get', { id }, { enabled: id !== undefined });
  const catalog = useEventTypes();
  const models = useModelKeys();
  const roles = useRpcQuery<Items<Role>>('rbac.roles.list');
  const [values, setValues] = useState<AutomationFormValues>(emptyAutomationForm);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState<AutomationWithSecret>();

  useEffect(() => {
    if (existing.data) setValues(automationFormOf(existing.data));
  }, [existing.data]);

  const eventTypes = useMemo(() => catalog.types.filter((type) => !type.startsWith('notification.') && !isNeverDelivered(type)), [catalog.types]);
  const roleOptions = (roles.data?.items ?? []).map((role) => ({ value: role.key, label: `${role.name} (${role.key})` }));
  const set = <K extends keyof AutomationFormValues>(key: K, value: AutomationFormValues[K]) => setValues((current) => ({ ...current, [key]: value }));
  const setAction = (index: number, action: ActionFormValues) => set('actions', values.actions.map((current, at) => (at === index ? action : current)));
  const moveAction = (index: number, offset: -1 | 1) => {
    const actions = [...values.actions];
    const [moved] = actions.splice(index, 1);
    actions.splice(index + offset, 0, moved as ActionFormValues);
    set('actions', actions);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const checked = checkAutomationForm(values, catalog.known);
    setErrors(checked.errors);
    if (!checked.input) {
      setError(undefined);
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const answer = id
        ? await rpc.call<AutomationWithSecret>('automations.update', { id, ...checked.input })
        : await rpc.call<AutomationWithSecret>('automations.create', checked.input);
      if (answer.secret) setSaved(answer);
      else navigate(`/automations/${encodeURIComponent(answer.id)}`);
    } catch (failure) {
      setError(failure);
      setErrors(formErrorsOf(failure));
    } finally {
      setBusy(false);
    }
  };

  if (id && existing.error) return <ErrorNotice error={existing.error} />;
  if (id && !existing.data) return <p role="status">Loading…</p>;
  const title = id ? `Edit ${existing.data?.name ?? 'automation'}` : 'New automation';
  const errorCount = Object.keys(errors).length;
  return (
    <section aria-labelledby="page-title">
      <p>
        <Link to={id ? `/automations/${encodeURIComponent(id)}` : '/automations'}>← {id ? existing.data?.name : 'Automations'}</Link>
      </p>
      <h1 id="page-title">{title}</h1>
      <form onSubmit={(event) => void submit(event)} noValidate className="editor">
        <ErrorNotice error={error} />
        <ErrorNotice error={catalog.error} />
        <TextField label="Name" value={values.name} onChange={(name) => set('name', name)} error={errors.name} maxLength={200} required />
        <div className="choice">
          <input type="checkbox" id="automation-enabled" checked={values.enabled} onChange={(event) => set('enabled', event.target.checked)} />
          <label htmlFor="automation-enabled">
            Enabled
            <span className="choice-description">A disabled automation starts no runs.</span>
          </label>
        </div>
        <TextField
          label="Runs a minute at most"
          hint="More are recorded as skipped, not dropped."
          inputMode="numeric"
          value={values.maxRunsPerMinute}
          onChange={(maxRunsPerMinute) => set('maxRunsPerMinute', maxRunsPerMinute)}
          error={errors.maxRunsPerMinute}
        />
        <TriggerEditor value={values.trigger} onChange={(trigger) => set('trigger', trigger)} eventTypes={eventTypes} models={models} errors={errors} />
        <h2>Actions</h2>
        <p className="field-hint">Run in order as the automation’s owner, all or nothing: if one fails, what the earlier ones wrote is undone.</p>
        {errors.actions ? <p className="field-error">{errors.actions}</p> : null}
        {values.actions.map((action, index) => (
          <ActionEditor
            key={index}
            index={index}
            count={values.actions.length}
            value={action}
            onChange={(next) => setAction(index, next)}
            onMove={(offset) => moveAction(index, offset)}
            onRemove={() => set('actions', values.actions.filter((_, at) => at !== index))}
            models={models}
            roles={roleOptions}
            errors={errors}
          />
        ))}
        <p>
          <button type="button" className="button" onClick={() => set('actions', [...values.actions, emptyAction()])} disabled={values.actions.length >= MAX_ACTIONS}>
            Add action
          </button>
        </p>
        <div className="button-row form-footer">
          <button type="submit" className="button button-primary" disabled={busy}>
            {busy ? 'Saving…' : id ? 'Save automation' : 'Create automation'}
          </button>
          <Link className="button" to={id ? `/automations/${encodeURIComponent(id)}` : '/automations'}>
            Cancel
          </Link>
          <span role="status" className="copy-status">
            {errorCount > 0 && !error ? `${errorCount} field${errorCount === 1 ? ' needs' : 's need'} attention` : ''}
          </span>
        </div>
      </form>
      <HookSecretDialog
        automation={saved}
        onClose={() => {
          if (saved) navigate(`/automations/${encodeURIComponent(saved.id)}`);
        }}
      />
    </section>
  );
}
