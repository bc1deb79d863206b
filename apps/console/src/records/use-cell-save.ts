import { useCallback, useRef } from 'react';
import type { ProcedureInput, ProcedureOutput, TypedProcedure, VersionedAnswer } from '../api/rpc-client';
import { isRpcError } from '../api/rpc-error';
import type { DataField, DataRecord } from '../data-models/types';
import { useSignedIn } from '../session/session-context';

export type CellSaveOutcome =
  | { status: 'saved'; record: DataRecord }
  /** The server refused the value (a rule only it can check, such as a deleted relation target). */
  | { status: 'refused'; message: string }
  /** Someone else changed the record after the grid read it: nothing was written. */
  | { status: 'conflict' }
  | { status: 'failed'; error: unknown };

interface KnownVersion {
  version: number;
  /** The `updatedAt` of the record at that version: the row the grid shows is at this version if they agree. */
  updatedAt: string;
}

/**
 * Saves one cell: `records.update` with that field alone and the version the grid's row was read
 * at, so a change someone else made meanwhile is a conflict (412) rather than overwritten. A list
 * answers no versions, so the first edit of a row reads it (`records.get`) when editing starts.
 */
export function useCellSave() {
  const { rpc } = useSignedIn();
  const callVersioned = useCallback(
    async <Name extends TypedProcedure>(procedure: Name, input: ProcedureInput<Name>): Promise<VersionedAnswer<ProcedureOutput<Name>>> =>
      rpc.callVersioned ? rpc.callVersioned(procedure, ...[input]) : { body: await rpc.call(procedure, ...[input]) },
    [rpc],
  );
  const versions = useRef(new Map<string, KnownVersion>());
  const reads = useRef(new Map<string, Promise<KnownVersion | undefined>>());

  const readVersion = useCallback(
    (id: string): Promise<KnownVersion | undefined> => {
      let read = reads.current.get(id);
      if (!read) {
        read = callVersioned('records.get', { id, fields: 'title' })
          .then(({ body, version }) => (version === undefined ? undefined : { version, updatedAt: body.updatedAt }))
          .catch(() => undefined)
          .finally(() => reads.current.delete(id));
        reads.current.set(id, read);
      }
      return read;
    },
    [callVersioned],
  );

  /** Learns the row's version ahead of the save (called when its editor opens). */
  const prepare = useCallback(
    (row: DataRecord) => {
      const known = versions.current.get(row.id);
      if (known?.updatedAt === row.updatedAt) return;
      void readVersion(row.id).then((read) => read && versions.current.set(row.id, read));
    },
    [readVersion],
  );

  const save = useCallback(
    async (row: DataRecord, field: DataField, value: unknown): Promise<CellSaveOutcome> => {
      let known = versions.current.get(row.id);
      if (known?.updatedAt !== row.updatedAt) {
        known = await readVersion(row.id);
        if (known) versions.current.set(row.id, known);
      }
      // Read after the grid's row: changed since, so the row on screen is not what this edit was based on.
      if (known && known.updatedAt !== row.updatedAt) return { status: 'conflict' };
      try {
        const { body, version } = await callVersioned('records.update', {
          id: row.id,
          data: { [field.key]: value },
          ...(known ? { expectedVersion: known.version } : {}),
        });
        if (version !== undefined) versions.current.set(row.id, { version, updatedAt: body.updatedAt });
        return { status: 'saved', record: body };
      } catch (error) {
        if (isRpcError(error) && error.status === 412) return { status: 'conflict' };
        if (isRpcError(error) && error.status === 400 && error.details.length > 0) {
          return { status: 'refused', message: error.details.map((detail) => detail.message).join(' ') };
        }
        return { status: 'failed', error };
      }
    },
    [callVersioned, readVersion],
  );

  /** The record as it is now, relations expanded, to replace a row that went stale. */
  const reread = useCallback(
    async (row: DataRecord, expand: string | undefined): Promise<DataRecord> => {
      const { body, version } = await callVersioned('records.get', { id: row.id, ...(expand ? { expand } : {}) });
      if (version !== undefined) versions.current.set(row.id, { version, updatedAt: body.updatedAt });
      return body;
    },
    [callVersioned],
  );

  return { prepare, save, reread };
}
