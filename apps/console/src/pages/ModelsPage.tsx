import '../data-models/data-models.css';
import { useState } from 'react';
import { formatCount, formatDateTime } from '../app/format';
import { Link, navigate } from '../app/router';
import { useRpcQuery } from '../api/use-rpc-query';
import { ErrorNotice } from '../components/ErrorNotice';
import { EmptyState } from '../components/EmptyState';
import { ModelDialog } from '../data-models/ModelDialog';
import type { DataModelListItem } from '../data-models/types';
import { useSignedIn } from '../session/session-context';

/** A model's count as the list gives it: "10,000+" once past the server's cap. */
const recordCountText = (model: DataModelListItem) => `${formatCount(model.recordCount ?? 0)}${model.recordCountCapped ? '+' : ''}`;

/** The organization's data models: their records are the organization's business data. */
export default function ModelsPage() {
  const { permissions } = useSignedIn();
  const models = useRpcQuery('dataModels.list', { recordCounts: true });
  const [creating, setCreating] = useState(false);
  const mayManage = permissions.has('data-models.manage');
  const mayReadRecords = permissions.has('records.read');

  return (
    <section aria-labelledby="page-title">
      <div className="page-header">
        <h1 id="page-title">Data models</h1>
        {mayManage ? (
          <button type="button" className="button button-primary" onClick={() => setCreating(true)}>
            Create data model
          </button>
        ) : null}
      </div>
      <p className="page-intro">
        A data model defines a kind of record and its typed fields. Its records are reached in the console and through the REST API at{' '}
        <code>/api/v1/models/{'{key}'}/records</code>.
      </p>
      <ErrorNotice error={models.error} />
      {models.data ? (
        models.data.items.length === 0 ? (
          <EmptyState
            title="No data models yet."
            actions={
              mayManage ? (
                <button type="button" className="button" onClick={() => setCreating(true)}>
                  Create your first data model
                </button>
              ) : undefined
            }
          >
            A data model is a kind of record, like Contacts or Deals, with typed fields.{' '}
            {mayManage ? 'Create one, add its fields, then add records or import a CSV.' : 'Someone who manages data models can create one.'}
          </EmptyState>
        ) : (
          <div className="table-wrap" role="region" aria-label="Data models" tabIndex={0}>
            <table>
              <caption className="visually-hidden">Data models</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Key</th>
                  <th scope="col">Records</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {models.data.items.map((model) => (
                  <tr key={model.key}>
                    <th scope="row">
                      <Link to={`/models/${encodeURIComponent(model.key)}`}>{model.name}</Link>
                      {model.description ? <span className="choice-description cell-wrap">{model.description}</span> : null}
                    </th>
                    <td>
                      <code>{model.key}</code>
                    </td>
                    <td>
                      {mayReadRecords ? (
                        <Link
                          to={`/models/${encodeURIComponent(model.key)}/records`}
                          aria-label={`Records of ${model.name}${model.recordCount === null ? '' : `: ${recordCountText(model)}`}`}
                        >
                          {model.recordCount === null ? 'Open' : recordCountText(model)}
                        </Link>
                      ) : (
                        '—'
                      )}
                    </td>
                    <td>{formatDateTime(model.updatedAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )
      ) : models.loading ? (
        <p role="status">Loading…</p>
      ) : null}
      <ModelDialog
        open={creating}
        onClose={(created) => {
          setCreating(false);
          if (created) navigate(`/models/${encodeURIComponent(created.key)}`);
        }}
      />
    </section>
  );
}
