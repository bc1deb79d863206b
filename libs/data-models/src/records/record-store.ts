import type { EntityManager } from '@mikro-orm/postgresql';
import { isUuidString, newId } from '@mrp/platform';
import { runSql, sql, trustedSql } from '../query/sql';
import { visibleTo } from './record-access';
import { RECORD_COLUMNS, type RecordRow } from './record-rows';

export type RecordState = 'live' | 'deleted' | 'any';

export interface RecordLookup {
  organizationId: string;
  id: string;
  roleIds: readonly string[];
  state: RecordState;
  /** Lock the row for the rest of the transaction (read-merge-write of a PATCH). */
  forUpdate?: boolean;
}

export type FoundRecord = RecordRow & { model_key: string };

const STATE_CONDITIONS: Readonly<Record<RecordState, string>> = {
  live: 'r.deleted_at IS NULL',
  deleted: 'r.deleted_at IS NOT NULL',
  any: 'TRUE',
};

/**
 * One record by id, if it is in the organization, in a live model, in the wanted state and
 * visible to the caller; otherwise null (the caller answers not_found, whichever the reason).
 */
export async function findVisibleRecord(em: EntityManager, lookup: RecordLookup): Promise<FoundRecord | null> {
  if (!isUuidString(lookup.id)) return null;
  const [row] = await runSql<FoundRecord>(
    em,
    sql`SELECT ${RECORD_COLUMNS}, m.key AS model_key
      FROM records r JOIN data_models m ON m.id = r.model_id AND m.archived_at IS NULL
      WHERE r.organization_id = ${lookup.organizationId} AND r.id = ${lookup.id}
        AND ${trustedSql(STATE_CONDITIONS[lookup.state])} AND ${visibleTo(lookup.roleIds)}
      ${trustedSql(lookup.forUpdate ? 'FOR UPDATE OF r' : '')}`,
  );
  return row ?? null;
}

export interface NewRecord {
  organizationId: string;
  modelId: string;
  title: string;
  data: Record<string, unknown>;
  userId: string;
}

export async function insertRecord(em: EntityManager, record: NewRecord): Promise<RecordRow> {
  const [row] = await runSql<RecordRow>(
    em,
    sql`INSERT INTO records AS r (id, organization_id, model_id, title, data, created_by, updated_by)
      VALUES (${newId()}, ${record.organizationId}, ${record.modelId}, ${record.title}, ${JSON.stringify(record.data)}::jsonb,
        ${record.userId}, ${record.userId})
      RETURNING ${RECORD_COLUMNS}`,
  );
  return row;
}

export async function updateRecordData(
  em: EntityManager,
  change: { id: string; title: string; data: Record<string, unknown>; userId: string },
): Promise<RecordRow> {
  const [row] = await runSql<RecordRow>(
    em,
    sql`UPDATE records AS r SET title = ${change.title}, data = ${JSON.stringify(change.data)}::jsonb,
        updated_at = date_trunc('milliseconds', now()), updated_by = ${change.userId}
      WHERE r.id = ${change.id}
      RETURNING ${RECORD_COLUMNS}`,
  );
  return row;
}

export async function softDeleteRecord(em: EntityManager, id: string): Promise<void> {
  await runSql(em, sql`UPDATE records SET deleted_at = now() WHERE id = ${id}`);
}

export async function purgeRecord(em: EntityManager, id: string): Promise<void> {
  // record_access rows go with it (ON DELETE CASCADE).
  await runSql(em, sql`DELETE FROM records WHERE id = ${id}`);
}

export async function restoreRecord(em: EntityManager, id: string, userId: string): Promise<RecordRow> {
  const [row] = await runSql<RecordRow>(
    em,
    sql`UPDATE records AS r SET deleted_at = NULL, updated_at = date_trunc('milliseconds', now()), updated_by = ${userId}
      WHERE r.id = ${id}
      RETURNING ${RECORD_COLUMNS}`,
  );
  return row;
}

export async function replaceRecordAccess(em: EntityManager, id: string, roleIds: readonly string[]): Promise<void> {
  await runSql(em, sql`DELETE FROM record_access WHERE record_id = ${id}`);
  if (roleIds.length > 0) {
    await runSql(em, sql`INSERT INTO record_access (record_id, role_id) SELECT ${id}, unnest(ARRAY[${[...roleIds]}]::uuid[])`);
  }
}
