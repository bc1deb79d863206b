import { useCallback, useState } from 'react';
import { describeError } from '../api/rpc-error';
import type { DataField, DataRecord } from '../data-models/types';
import { cellValueOf, checkCell, mergeSaved, sameValue } from './cell-editing';
import type { CellCommit } from './GridRow';
import { useCellSave } from './use-cell-save';

export const CONFLICT_MESSAGE = 'Someone else changed this record after it was loaded, so this change was not saved.';

export interface CellConflict {
  record: DataRecord;
  field: DataField;
}

/**
 * A grid cell's commit: read as typed, checked by the field's rules in the browser (nothing is
 * sent when they refuse), then saved as that field alone at the row's version. Refusals stay on
 * their cell; a conflict offers to reload the record.
 */
export function useCellCommit(fields: readonly DataField[], expand: string | undefined, replace: (record: DataRecord) => void) {
  const { prepare, save, reread } = useCellSave();
  const [cellErrors, setCellErrors] = useState<Record<string, string>>({});
  const [conflict, setConflict] = useState<CellConflict | null>(null);

  const setCellError = useCallback((record: DataRecord, field: DataField, message: string | undefined) => {
    setCellErrors((current) => {
      const key = `${record.id}:${field.key}`;
      if (message === undefined) {
        if (!(key in current)) return current;
        const { [key]: _, ...rest } = current;
        return rest;
      }
      return { ...current, [key]: message };
    });
  }, []);

  const commit = useCallback(
    async ({ record, field, draft, shown }: CellCommit): Promise<string | undefined> => {
      const value = cellValueOf(field, draft);
      if (sameValue(field, record.data[field.key], value)) {
        setCellError(record, field, undefined);
        return undefined;
      }
      const refusal = checkCell(fields, field, value);
      if (refusal) {
        setCellError(record, field, refusal);
        return refusal;
      }
      const outcome = await save(record, field, value);
      switch (outcome.status) {
        case 'saved':
          setCellError(record, field, undefined);
          replace(mergeSaved(record, outcome.record, fields, field, field.type === 'RELATION' ? shown : value));
          return undefined;
        case 'refused':
          setCellError(record, field, outcome.message);
          return outcome.message;
        case 'conflict':
          setConflict({ record, field });
          return CONFLICT_MESSAGE;
        default: {
          const { message, requestId } = describeError(outcome.error);
          return requestId ? `${message} (request id ${requestId})` : message;
        }
      }
    },
    [fields, save, replace, setCellError],
  );

  /** Shows the record as it is now, so the next edit is based on it. */
  const reloadConflicted = useCallback(async () => {
    if (!conflict) return;
    const fresh = await reread(conflict.record, expand);
    replace(fresh);
    setCellError(conflict.record, conflict.field, undefined);
    setConflict(null);
  }, [conflict, reread, expand, replace, setCellError]);

  return { commit, prepare, cellErrors, conflict, dismissConflict: () => setConflict(null), reloadConflicted, reread };
}
