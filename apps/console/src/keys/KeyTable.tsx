import { formatDateTime } from '../app/format';
import { EmptyState } from '../components/EmptyState';
import type { ApiKey } from '../api/types';
import { describeAccess } from './key-form';

/** Keys as the contract's keys page lists them: name, prefix, access, expiry, status, last used. */
export function KeyTable({ keys, caption, onRevoke }: { keys: ApiKey[]; caption: string; onRevoke: (key: ApiKey) => void }) {
  if (keys.length === 0) {
    return <EmptyState title="No keys yet.">Create a key to call the REST API from a script, a spreadsheet or another service.</EmptyState>;
  }
  return (
    <div className="table-wrap" role="region" aria-label={caption} tabIndex={0}>
      <table>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Prefix</th>
            <th scope="col">Access</th>
            <th scope="col">Expires</th>
            <th scope="col">Status</th>
            <th scope="col">Last used</th>
            <th scope="col" className="row-actions">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => (
            <tr key={key.id}>
              <th scope="row">{key.name}</th>
              <td>
                <code>{key.prefix}…</code>
              </td>
              <td title={key.fullAccess ? undefined : key.permissions.join(', ')}>{describeAccess(key)}</td>
              <td>{formatDateTime(key.expiresAt, 'Never')}</td>
              <td>
                <span className={`badge badge-${key.status}`}>{key.status}</span>
              </td>
              <td>{formatDateTime(key.lastUsedAt, 'Never')}</td>
              <td className="row-actions">
                {key.status === 'active' ? (
                  <button type="button" className="button button-small button-danger-quiet" onClick={() => onRevoke(key)} aria-label={`Revoke ${key.name}`}>
                    Revoke
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
