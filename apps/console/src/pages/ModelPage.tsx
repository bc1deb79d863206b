import '../data-models/data-models.css';
import { useState } from 'react';
import type { PageProps } from '../app/pages';
import { modelApiReference } from '../app/api-reference';
import { Link, navigate } from '../app/router';
import { useRpcQuery } from '../api/use-rpc-query';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { ErrorNotice } from '../components/ErrorNotice';
import { configSummary } from '../data-models/config-summary';
import { FieldDialog } from '../data-models/FieldDialog';
import { FIELD_TYPE_INFO, liveFields } from '../data-models/field-types';
import { ModelDialog } from '../data-models/ModelDialog';
import type { DataField } from '../data-models/types';
import { useSignedIn } from '../session/session-context';

/** One data model: its fields (add, edit, archive), rename, archive, and the way to its records. */
export default function ModelPage({ params }: PageProps) {
  const key = params.key as string;
  const { rpc, permissions } = useSignedIn();
  const model = useRpcQuery('dataModels.get', { key });
  const fields = useRpcQuery('dataModels.fields.list', { model: key });
  const mayManage = permissions.has('data-models.manage');
  const models = useRpcQuery('dataModels.list', {}, { enabled: mayManage });
  const [editingModel, setEditingModel] = useState(false);
  const [archivingModel, setArchivingModel] = useState(false);
  const [fieldDialog, setFieldDialog] = useState<{ field?: DataField } | null>(null);
  const [archivingField, setArchivingField] = useState<DataField>();

  if (model.error) {
    return (
      <section>
        <p>
          <Link to="/models">← Data models</Link>
        </p>
        <ErrorNotice error={model.error} />
      </section>
    );
  }
  if (!model.data) return <p role="status">Loading…</p>;
  const current = model.data;
  const live = liveFields(fields.data?.items ?? []);
  const reference = modelApiReference(current.key);

  return (
    <section aria-labelledby="page-title">
      <p>
        <Link to="/models">← Data models</Link>
      </p>
      <div className="page-header">
        <h1 id="page-title">{current.name}</h1>
        <div className="button-row">
          {permissions.has('records.read') ? (
            <Link className="button button-primary" to={`/models/${encodeURIComponent(key)}/records`}>
              Open records
            </Link>
          ) : null}
          {mayManage ? (
            <>
              <button type="button" className="button" onClick={() => setEditingModel(true)}>
                Edit model
              </button>
              <button type="button" className="button button-danger-quiet" onClick={() => setArchivingModel(true)}>
                Archive model
              </button>
            </>
          ) : null}
        </div>
      </div>
      <p className="page-intro">
        {current.description ? `${current.description} · ` : ''}key <code>{current.key}</code>
      </p>
      <p className="page-intro">
        In the API reference: <a href={reference.list}>list</a> and <a href={reference.create}>create</a> its records at{' '}
        <code>/api/v1/models/{current.key}/records</code>; with an API key pasted there, <a href={reference.typed}>its own section</a>, typed with its
        fields.
      </p>

      <div className="page-header section">
        <h2>Fields</h2>
        {mayManage ? (
          <button type="button" className="button" onClick={() => setFieldDialog({})}>
            Add field
          </button>
        ) : null}
      </div>
      <ErrorNotice error={fields.error} />
      {fields.data ? (
        <div className="table-wrap" role="region" aria-label="Fields" tabIndex={0}>
          <table>
            <caption className="visually-hidden">Fields of {current.name}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Type</th>
                <th scope="col">Settings</th>
                <th scope="col">Required</th>
                <th scope="col">Indexed</th>
                {mayManage ? <th scope="col" className="row-actions">Actions</th> : null}
              </tr>
            </thead>
            <tbody>
              {live.map((field) => (
                <tr key={field.key}>
                  <th scope="row">{field.name}</th>
                  <td>
                    <code>{field.key}</code>
                  </td>
                  <td>{FIELD_TYPE_INFO[field.type].label}</td>
                  <td className="cell-wrap">{configSummary(field) || '—'}</td>
                  <td>{field.required ? 'Yes' : 'No'}</td>
                  <td>
                    {field.indexed ? (field.indexStatus === 'failed' ? `Failed: ${field.indexError ?? ''}` : (field.indexStatus ?? 'yes')) : 'No'}
                  </td>
                  {mayManage ? (
                    <td className="row-actions">
                      <div className="button-row">
                        <button type="button" className="button button-small" onClick={() => setFieldDialog({ field })} aria-label={`Edit ${field.name}`}>
                          Edit
                        </button>
                        {field.key !== 'title' ? (
                          <button type="button" className="button button-small button-danger-quiet" onClick={() => setArchivingField(field)} aria-label={`Archive ${field.name}`}>
                            Archive
                          </button>
                        ) : null}
                      </div>
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : fields.loading ? (
        <p role="status">Loading…</p>
      ) : null}

      <ModelDialog
        open={editingModel}
        model={current}
        onClose={(saved) => {
          setEditingModel(false);
          if (saved) void model.reload();
        }}
      />
      <FieldDialog
        open={fieldDialog !== null}
        modelKey={key}
        field={fieldDialog?.field}
        fields={live}
        models={models.data?.items ?? []}
        onClose={(saved) => {
          setFieldDialog(null);
          if (saved) void fields.reload();
        }}
      />
      <ConfirmDialog
        open={archivingModel}
        title={`Archive ${current.name}?`}
        confirmLabel="Archive model"
        danger
        onConfirm={async () => {
          await rpc.call('dataModels.archive', { key });
          navigate('/models');
        }}
        onClose={() => setArchivingModel(false)}
      >
        <p>
          The model and all its records disappear from the console and the API. Its key <code>{key}</code> stays taken.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={archivingField !== undefined}
        title={`Archive field ${archivingField?.name ?? ''}?`}
        confirmLabel="Archive field"
        danger
        onConfirm={async () => {
          if (!archivingField) return;
          await rpc.call('dataModels.fields.archive', { model: key, key: archivingField.key });
          await fields.reload();
        }}
        onClose={() => setArchivingField(undefined)}
      >
        <p>
          Its values disappear from every record, filter and formula. Its key <code>{archivingField?.key}</code> stays taken. A formula that reads it must be
          changed first.
        </p>
      </ConfirmDialog>
    </section>
  );
}
