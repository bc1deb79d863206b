import '../automations/automations.css';
import type { FormEvent } from 'react';
import type { PageProps } from '../app/pages';
import { Link, navigate } from '../app/router';
import { ErrorNotice } from '../components/ErrorNotice';
import { TextField } from '../forms/fields';
import { ActionEditor } from '../automations/ActionEditor';
import { HookSecretDialog } from '../automations/HookSecretDialog';
import { TriggerEditor } from '../automations/TriggerEditor';
import { useAutomationEditor } from '../automations/use-automation-editor';
import { useEditorCatalog } from '../automations/use-editor-catalog';

/** Creates an automation (`/automations/new`) or changes one (`/automations/:id/edit`), with pickers for what the server lists. */
export default function AutomationEditorPage({ params }: PageProps) {
  const id = params.id;
  const catalog = useEditorCatalog();
  const editor = useAutomationEditor(id, catalog.knownTypes);
  const { values, set, errors, error } = editor;

  if (id && editor.existing.error) return <ErrorNotice error={editor.existing.error} />;
  if (id && !editor.loaded) return <p role="status">Loading…</p>;
  const name = editor.existing.data?.name;
  const back = id ? `/automations/${encodeURIComponent(id)}` : '/automations';
  const errorCount = Object.keys(errors).length;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void editor.submit();
  };
  return (
    <section aria-labelledby="page-title">
      <p>
        <Link to={back}>← {id ? name : 'Automations'}</Link>
      </p>
      <h1 id="page-title">{id ? `Edit ${name ?? 'automation'}` : 'New automation'}</h1>
      <form onSubmit={submit} noValidate className="editor automation-editor">
        <ErrorNotice error={error} />
        <ErrorNotice error={catalog.error} />
        <TextField label="Name" value={values.name} onChange={(next) => set('name', next)} error={errors.name} maxLength={200} required />
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
        <TriggerEditor value={values.trigger} onChange={(trigger) => set('trigger', trigger)} eventTypes={catalog.eventTypes} models={catalog.models} errors={errors} />
        <h2>Actions</h2>
        <p className="field-hint">Run in order as the automation’s owner, all or nothing: if one fails, what the earlier ones wrote is undone.</p>
        {errors.actions ? <p className="field-error">{errors.actions}</p> : null}
        {values.actions.map((action, index) => (
          <ActionEditor
            key={index}
            index={index}
            count={values.actions.length}
            value={action}
            onChange={(next) => editor.actions.change(index, next)}
            onMove={(offset) => editor.actions.move(index, offset)}
            onRemove={() => editor.actions.remove(index)}
            models={catalog.models}
            fields={editor.fieldsByModel.get(action.model)}
            roles={catalog.roles}
            people={catalog.people}
            templateVariables={editor.variables}
            errors={errors}
          />
        ))}
        <p>
          <button type="button" className="button" onClick={editor.actions.add} disabled={!editor.actions.canAdd}>
            Add action
          </button>
        </p>
        <div className="button-row form-footer">
          <button type="submit" className="button button-primary" disabled={editor.busy}>
            {editor.busy ? 'Saving…' : id ? 'Save automation' : 'Create automation'}
          </button>
          <Link className="button" to={back}>
            Cancel
          </Link>
          <span role="status" className="copy-status">
            {errorCount > 0 ? `${errorCount} field${errorCount === 1 ? ' needs' : 's need'} attention` : ''}
          </span>
        </div>
      </form>
      <HookSecretDialog
        automation={editor.saved}
        onClose={() => {
          if (editor.saved) navigate(`/automations/${encodeURIComponent(editor.saved.id)}`);
        }}
      />
    </section>
  );
}
