import { createHash } from 'node:crypto';
import type { AnswerVersion } from '@mrp/platform';
import { isLive, type FieldShape } from '../models/model-store';
import { isoTimestamp } from '../query/field-expressions';
import { sql } from '../query/sql';
import type { DeletedRecordOutput, RecordOutput } from './schemas';

/** The columns every record query selects, timestamps already in the API's format. */
export const RECORD_COLUMNS = sql`r.id, r.model_id, r.title, r.data, ${isoTimestamp('r.created_at')} AS created_at,
  ${isoTimestamp('r.updated_at')} AS updated_at, r.created_by, r.updated_by, r.deleted_at IS NOT NULL AS deleted, r.version`;

export interface RecordRow {
  id: string;
  model_id: string;
  title: string;
  data: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  created_by: string;
  updated_by: string;
  deleted: boolean;
  /** 1 at creation, one more with every write. */
  version: number;
}

/** Whether a record's answer shows the field's value: a live field, among the `selected` ones when a selection is given. */
const isShown = (field: FieldShape, selected: ReadonlySet<string> | undefined) => isLive(field) && (!selected || selected.has(field.key));

/** The data keys a record's answer shows, in the order it shows them (recordOutput's). */
export function shownDataKeys(fields: readonly FieldShape[], selected?: ReadonlySet<string>): string[] {
  return fields.filter((field) => isShown(field, selected)).map((field) => field.key);
}

/** A record as answered: its live fields' values, or only the `selected` ones. */
export function recordOutput(row: RecordRow, modelKey: string, fields: readonly FieldShape[], selected?: ReadonlySet<string>): RecordOutput {
  const data: Record<string, unknown> = {};
  for (const field of fields) if (isShown(field, selected) && Object.hasOwn(row.data, field.key)) data[field.key] = row.data[field.key];
  return {
    id: row.id,
    model: modelKey,
    title: row.title,
    data,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    createdBy: row.created_by,
    updatedBy: row.updated_by,
  };
}

/** A row of the trash listing, which also selects when and by whom the record was deleted. */
export type DeletedRecordRow = RecordRow & { deleted_at: string; deleted_by: string | null };

export function deletedRecordOutput(row: DeletedRecordRow, modelKey: string, fields: readonly FieldShape[], selected?: ReadonlySet<string>): DeletedRecordOutput {
  return { ...recordOutput(row, modelKey, fields, selected), deletedAt: row.deleted_at, deletedBy: row.deleted_by };
}

/**
 * The version an answer showing `row` carries beside it. What the record shows also depends on its
 * model's field definitions (an archived field drops out) and on a `fields` selection, so both are
 * its variant: the entity tag then changes whenever the answer's content can, while a write's
 * check looks at the record's own version alone.
 */
export function recordVersion(row: Pick<RecordRow, 'version'>, fieldsVersion: string, selected?: ReadonlySet<string>): AnswerVersion {
  const selection = selected ? `.${createHash('sha256').update([...selected].sort().join(',')).digest('hex').slice(0, 12)}` : '';
  return { version: row.version, variant: `${fieldsVersion}${selection}` };
}
