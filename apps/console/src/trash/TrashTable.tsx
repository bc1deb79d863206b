import { formatDateTime } from '../app/format';
import type { DeletedRecordOutput, RecordListOutput } from '@mrp/data-models/contracts';
import { deletedByName, type MemberName } from './deleted-by';

/** A record in the trash (`records.list` with `deleted: 'only'`). */
export type DeletedRecord = DeletedRecordOutput;

/**
 * The items of a `records.list` with `deleted: 'only'`: the server answers deleted records alone
 * there, while the schema's item is a live or a deleted record whatever the input.
 */
export const asDeletedRecords = (records: RecordListOutput['items']): readonly DeletedRecord[] => records as readonly DeletedRecord[];

export interface TrashTableProps {
  modelName: string;
  records: readonly DeletedRecord[];
  members: ReadonlyMap<string, MemberName>;
  mayPurge: boolean;
  busyId: string | undefined;
  onRestore(record: DeletedRecord): void;
  onPurge(record: DeletedRecord): void;
}

/** The deleted records, newest deletion first: who deleted each and when, with restore (and purge). */
export function TrashTable({ modelName, records, members, mayPurge, busyId, onRestore, onPurge }: TrashTableProps) {
  return (
    <div className="table-wrap" role="region" aria-label={`Deleted ${modelName} records`} tabIndex={0}>
      <table className="trash-table">
        <thead>
          <tr>
            <th scope="col">Title</th>
            <th scope="col">Deleted</th>
            <th scope="col">Deleted by</th>
            <th scope="col" className="row-actions">
              Actions
            </th>
          </tr>
        </thead>
        <tbody>
          {records.map((record) => (
            <tr key={record.id}>
              <th scope="row" className="cell-clip">
                {record.title}
              </th>
              <td>{formatDateTime(record.deletedAt)}</td>
              <td className="cell-clip">{deletedByName(record.deletedBy, members)}</td>
              <td className="row-actions">
                <div className="button-row">
                  <button type="button" className="button button-small" disabled={busyId === record.id} onClick={() => onRestore(record)} aria-label={`Restore ${record.title}`}>
                    Restore
                  </button>
                  {mayPurge ? (
                    <button type="button" className="button button-small button-danger-quiet" disabled={busyId === record.id} onClick={() => onPurge(record)} aria-label={`Delete ${record.title} forever`}>
                      Delete forever
                    </button>
                  ) : null}
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
