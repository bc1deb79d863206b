import type { EntityManager } from '@mikro-orm/postgresql';
import { executePrepared, isUuidString, newId, preparedStatement, sqlTextArray, type PreparedStatement } from '@mrp/platform';
import { isoTimestamp } from '../query/field-expressions';
import { runSql, sql, trustedSql } from '../query/sql';
import { boundRoleIds, visibleTo, visibleToRolesIn } from './record-access';
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

export type FoundRecord = RecordRow & {
  model_key: string;
  /** The model's `fields_version` as of the same statement, to check cached field definitions against. */
  fields_version: string;
  /** The roles the record is restricted to (empty: none), for its events. */
  access_role_ids: string[];
};

const STATE_CONDITIONS: Readonly<Record<RecordState, string>> = {
  live: 'r.deleted_at IS NULL',
  deleted: 'r.deleted_at IS NOT NULL',
  any: 'TRUE',
};

// Prepared, one per state and lock: the read of every GET, PATCH and DELETE by id. Parameters:
// organization, record id, the caller's role ids. The row is found by its id alone, in a subquery
// the planner may not merge into the rest (OFFSET 0), so the primary key is the only index that
// can find it, whatever the statistics say; the organization, state and visibility are checked on
// that one row. Beside the organization, the id let a generic plan built on stale statistics
// (a table analysed while nearly empty, then filled by a burst of writes) pick an index that
// leads with the organization and read all of it.
// The locking variant locks only a row that passed those checks: the checks run unlocked in an
// InitPlan that yields the id, and the outer read locks the row by that id alone (a lock taken in
// the fenced subquery would fall on any row with the id, another organization's or a hidden one,
// and make its writers wait for a caller who may not see it). The state is checked again on the
// locked row, which READ COMMITTED re-reads after a concurrent write.
const ACCESS_ROLE_IDS = 'ARRAY(SELECT ra.role_id::text FROM record_access ra WHERE ra.record_id = r.id) AS access_role_ids';

function findRecordStatement(state: RecordState, forUpdate: boolean): PreparedStatement {
  const byIdChecked = `(SELECT * FROM records WHERE id = $2::uuid OFFSET 0) r
    JOIN data_models m ON m.id = r.model_id AND m.archived_at IS NULL
    WHERE r.organization_id = $1::uuid
      AND ${STATE_CONDITIONS[state]} AND ${visibleToRolesIn('$3::uuid[]')}`;
  const text = forUpdate
    ? `SELECT ${RECORD_COLUMNS.text}, m.key AS model_key, m.fields_version, ${ACCESS_ROLE_IDS}
    FROM records r JOIN data_models m ON m.id = r.model_id
    WHERE r.id = (SELECT r.id FROM ${byIdChecked}) AND ${STATE_CONDITIONS[state]}
    FOR UPDATE OF r`
    : `SELECT ${RECORD_COLUMNS.text}, m.key AS model_key, m.fields_version, ${ACCESS_ROLE_IDS}
    FROM ${byIdChecked}`;
  return preparedStatement(text, {
    purpose: `record by id, ${state}${forUpdate ? ', locked' : ''}`,
    indexes: ['records_pkey', 'data_models_pkey', 'record_access_pkey'],
  });
}

const FIND_RECORD = {
  read: { live: findRecordStatement('live', false), deleted: findRecordStatement('deleted', false), any: findRecordStatement('any', false) },
  lock: { live: findRecordStatement('live', true), deleted: findRecordStatement('deleted', true), any: findRecordStatement('any', true) },
} as const;

/**
 * One record by id, if it is in the organization, in a live model, in the wanted state and
 * visible to the caller; otherwise null (the caller answers not_found, whichever the reason).
 */
export async function findVisibleRecord(em: EntityManager, lookup: RecordLookup): Promise<FoundRecord | null> {
  if (!isUuidString(lookup.id)) return null;
  const statement = FIND_RECORD[lookup.forUpdate ? 'lock' : 'read'][lookup.state];
  const [row] = await executePrepared<FoundRecord>(em, statement, [
    lookup.organizationId,
    lookup.id,
    sqlTextArray(boundRoleIds(lookup.roleIds)),
  ]);
  return row ?? null;
}

export interface NewRecord {
  organizationId: string;
  modelId: string;
  /** The model's `fields_version` the data was validated against. */
  fieldsVersion: string;
  title: string;
  data: Record<string, unknown>;
  userId: string;
}

// Prepared: PostgreSQL plans an INSERT ... SELECT ... RETURNING in about the time it runs it, and
// this is the statement of every create. Parameters: id, title, data, user, model, organization, fields_version.
const INSERT_RECORD_IF_CURRENT = preparedStatement(
  `INSERT INTO records AS r (id, organization_id, model_id, title, data, created_by, updated_by)
  SELECT $1::uuid, m.organization_id, m.id, $2::text, $3::jsonb, $4::text, $4::text
  FROM data_models m
  WHERE m.id = $5::uuid AND m.organization_id = $6::uuid AND m.archived_at IS NULL AND m.fields_version = $7::bigint
  RETURNING r.data, ${isoTimestamp('r.created_at').text} AS created_at, ${isoTimestamp('r.updated_at').text} AS updated_at`,
  { purpose: 'record insert, if the model fields are current', indexes: ['data_models_pkey'] },
);

/**
 * Inserts the record only if its model is still live and its fields are still those the data
 * was validated against (same `fields_version`); otherwise writes nothing and answers null, and
 * the caller reloads the model. The check lives in the INSERT itself, so checking costs no round trip.
 */
export async function insertRecordIfCurrent(em: EntityManager, record: NewRecord): Promise<RecordRow | null> {
  const id = newId();
  // Only what the database decides comes back (timestamps, and `data` as jsonb normalises it);
  // the rest is what was just written.
  const [row] = await executePrepared<Pick<RecordRow, 'data' | 'created_at' | 'updated_at'>>(em, INSERT_RECORD_IF_CURRENT, [
    id,
    record.title,
    JSON.stringify(record.data),
    record.userId,
    record.modelId,
    record.organizationId,
    record.fieldsVersion,
  ]);
  if (!row) return null;
  return {
    version: 1,
    id,
    model_id: record.modelId,
    title: record.title,
    data: row.data,
    created_at: row.created_at,
    updated_at: row.updated_at,
    created_by: record.userId,
    updated_by: record.userId,
    deleted: false,
  };
}

export interface NewRecords {
  organizationId: string;
  modelId: string;
  /** The model's `fields_version` every record was validated against. */
  fieldsVersion: string;
  userId: string;
  records: ReadonlyArray<{ title: string; data: Record<string, unknown> }>;
}

/**
 * Inserts a batch in one statement (the records as one JSON parameter, unnested in order), on the
 * same condition as insertRecordIfCurrent: null, and nothing written, when the model is archived
 * or its fields changed. The rows come back in the order given.
 */
export async function insertRecordsIfCurrent(em: EntityManager, batch: NewRecords): Promise<RecordRow[] | null> {
  const ids = batch.records.map(() => newId());
  const items = batch.records.map((record, index) => ({ id: ids[index], title: record.title, data: record.data }));
  const rows = await runSql<Pick<RecordRow, 'id' | 'data' | 'created_at' | 'updated_at'>>(
    em,
    sql`INSERT INTO records AS r (id, organization_id, model_id, title, data, created_by, updated_by)
      SELECT (b.item->>'id')::uuid, m.organization_id, m.id, b.item->>'title', b.item->'data', ${batch.userId}, ${batch.userId}
      FROM data_models m, jsonb_array_elements(${JSON.stringify(items)}::jsonb) WITH ORDINALITY AS b(item, n)
      WHERE m.id = ${batch.modelId} AND m.organization_id = ${batch.organizationId} AND m.archived_at IS NULL
        AND m.fields_version = ${batch.fieldsVersion}::bigint
      ORDER BY b.n
      RETURNING r.id, r.data, ${isoTimestamp('r.created_at')} AS created_at, ${isoTimestamp('r.updated_at')} AS updated_at`,
  );
  if (rows.length !== ids.length) return null;
  const byId = new Map(rows.map((row) => [row.id, row]));
  return batch.records.map((record, index) => {
    const row = byId.get(ids[index]) as (typeof rows)[number];
    return {
      version: 1,
      id: ids[index],
      model_id: batch.modelId,
      title: record.title,
      data: row.data,
      created_at: row.created_at,
      updated_at: row.updated_at,
      created_by: batch.userId,
      updated_by: batch.userId,
      deleted: false,
    };
  });
}

/**
 * The live records among `ids` that are in the organization, in a live model (the one keyed
 * `modelKey`, when given) and visible to the caller, locked for the rest of the transaction, in id
 * order (so two batches lock their common rows in one order). Any other id is simply absent.
 */
export async function findVisibleRecordsForUpdate(
  em: EntityManager,
  lookup: { organizationId: string; ids: readonly string[]; roleIds: readonly string[]; modelKey?: string },
): Promise<FoundRecord[]> {
  const ids = lookup.ids.filter(isUuidString);
  if (ids.length === 0) return [];
  const ofModel = lookup.modelKey === undefined ? sql`TRUE` : sql`m.key = ${lookup.modelKey}`;
  // As findRecordStatement's locking variant: the checks run unlocked, the lock falls on checked rows only.
  return runSql<FoundRecord>(
    em,
    sql`SELECT ${RECORD_COLUMNS}, m.key AS model_key, m.fields_version, ${trustedSql(ACCESS_ROLE_IDS)}
      FROM records r JOIN data_models m ON m.id = r.model_id
      WHERE r.id IN (
          SELECT r.id FROM records r JOIN data_models m ON m.id = r.model_id AND m.archived_at IS NULL
          WHERE r.id = ANY(ARRAY[${ids}]::uuid[]) AND r.organization_id = ${lookup.organizationId}
            AND r.deleted_at IS NULL AND ${ofModel} AND ${visibleTo(lookup.roleIds)}
        ) AND r.deleted_at IS NULL
      ORDER BY r.id
      FOR UPDATE OF r`,
  );
}

/** Writes each record's new title and data in one statement; the rows in the order given. */
export async function updateRecordsData(
  em: EntityManager,
  userId: string,
  changes: ReadonlyArray<{ id: string; title: string; data: Record<string, unknown> }>,
): Promise<RecordRow[]> {
  const rows = await runSql<RecordRow>(
    em,
    sql`UPDATE records AS r SET title = b.item->>'title', data = b.item->'data',
        updated_at = date_trunc('milliseconds', now()), updated_by = ${userId}, version = r.version + 1
      FROM jsonb_array_elements(${JSON.stringify(changes)}::jsonb) AS b(item)
      WHERE r.id = (b.item->>'id')::uuid
      RETURNING ${RECORD_COLUMNS}`,
  );
  const byId = new Map(rows.map((row) => [row.id, row]));
  return changes.map((change) => byId.get(change.id) as RecordRow);
}

/** Soft-deletes the records in one statement. */
export async function softDeleteRecords(em: EntityManager, ids: readonly string[], userId: string): Promise<void> {
  await runSql(
    em,
    sql`UPDATE records AS r SET deleted_at = now(), deleted_by = ${userId}, version = r.version + 1
      WHERE r.id = ANY(ARRAY[${[...ids]}]::uuid[])`,
  );
}

/**
 * The version a write must find, when the caller named one (If-Match, `expectedVersion`). It is
 * checked in the writing statement itself: the statement that finds another version writes nothing.
 */
function versionCondition(expectedVersion: number | undefined) {
  return expectedVersion === undefined ? sql`TRUE` : sql`r.version = ${expectedVersion}`;
}

/** The updated row; null when `expectedVersion` is given and the record is at another one (nothing written). */
export async function updateRecordData(
  em: EntityManager,
  change: { id: string; title: string; data: Record<string, unknown>; userId: string; expectedVersion?: number },
): Promise<RecordRow | null> {
  const [row] = await runSql<RecordRow>(
    em,
    sql`UPDATE records AS r SET title = ${change.title}, data = ${JSON.stringify(change.data)}::jsonb,
        updated_at = date_trunc('milliseconds', now()), updated_by = ${change.userId}, version = r.version + 1
      WHERE r.id = ${change.id} AND ${versionCondition(change.expectedVersion)}
      RETURNING ${RECORD_COLUMNS}`,
  );
  return row ?? null;
}

/** False when `expectedVersion` is given and the record is at another one (nothing written). */
export async function softDeleteRecord(em: EntityManager, deletion: { id: string; userId: string; expectedVersion?: number }): Promise<boolean> {
  const rows = await runSql(
    em,
    sql`UPDATE records AS r SET deleted_at = now(), deleted_by = ${deletion.userId}, version = r.version + 1
      WHERE r.id = ${deletion.id} AND ${versionCondition(deletion.expectedVersion)} RETURNING r.id`,
  );
  return rows.length === 1;
}

/** False when `expectedVersion` is given and the record is at another one (nothing deleted). */
export async function purgeRecord(em: EntityManager, id: string, expectedVersion?: number): Promise<boolean> {
  // record_access rows go with it (ON DELETE CASCADE).
  const rows = await runSql(em, sql`DELETE FROM records AS r WHERE r.id = ${id} AND ${versionCondition(expectedVersion)} RETURNING r.id`);
  return rows.length === 1;
}

export async function restoreRecord(em: EntityManager, id: string, userId: string): Promise<RecordRow> {
  const [row] = await runSql<RecordRow>(
    em,
    sql`UPDATE records AS r SET deleted_at = NULL, deleted_by = NULL, updated_at = date_trunc('milliseconds', now()), updated_by = ${userId},
        version = r.version + 1
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
