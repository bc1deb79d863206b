import type { EntityManager } from '@mikro-orm/postgresql';
import { isUuidString, withSession, type Logger } from '@mrp/platform';
import { valueKind, type FieldType } from '@mrp/field-validation';
import { jsonValue, textPrefix, typedValue } from '../query/field-expressions';
import { sql, trustedSql, type SqlFragment } from '../query/sql';

/**
 * Expression indexes for `indexed` fields: one partial index per field over the shared records
 * table (`WHERE model_id = <model> AND deleted_at IS NULL`), typed like the filter and sort
 * expressions so the planner matches them. They are built with CREATE INDEX CONCURRENTLY, which
 * cannot run in a transaction: the field procedures mark the field `pending` (or `dropping`) in
 * their transaction and run `reconcileFieldIndex` after commit; `dataModels.fields.retryIndexes`
 * (a scheduled task's procedure) finishes work a crashed process left behind.
 */

export function indexName(fieldId: string): string {
  return `records_field_${fieldId.replace(/-/g, '')}`;
}

/**
 * The planner ignores the statistics of partial expression indexes, so each indexed field also
 * gets expression statistics; without them a selective filter looks unselective and the planner
 * walks the created_at index instead of the field's.
 */
export function statisticsName(fieldId: string): string {
  return `${indexName(fieldId)}_stats`;
}

/** FILE and ATTACHMENTS values are objects: nothing an index could order or match. */
export function isIndexable(field: { type: FieldType; config: Record<string, unknown> }): boolean {
  return valueKind(field) !== 'object';
}

interface FieldIndexTarget {
  id: string;
  modelId: string;
  key: string;
  type: FieldType;
  config: Record<string, unknown>;
}

/** The CREATE INDEX statement for a field. Identifiers come from our own rows (uuid, validated key). */
export function createIndexStatement(field: FieldIndexTarget): string {
  if (!isUuidString(field.modelId) || !isUuidString(field.id)) throw new Error('Index targets must have uuid ids');
  const kind = valueKind(field);
  const where = `WHERE model_id = '${field.modelId}' AND deleted_at IS NULL`;
  const name = indexName(field.id);
  switch (kind) {
    case 'list':
      // jsonb_path_ops answers `@>`, the operator the filter compiler uses for multi-valued fields.
      return `CREATE INDEX CONCURRENTLY ${name} ON records USING gin (${jsonValue(field.key, 'data').text} jsonb_path_ops) ${where}`;
    case 'text':
      return `CREATE INDEX CONCURRENTLY ${name} ON records ((${textPrefix(typedValue(field.key, kind, 'data')).text}), id) ${where}`;
    case 'object':
      throw new Error(`${field.type} fields cannot be indexed`);
    default:
      return `CREATE INDEX CONCURRENTLY ${name} ON records ((${typedValue(field.key, kind, 'data').text}), id) ${where}`;
  }
}

/** Expression statistics for ordered kinds (the `@>` estimate of list fields does not use them). */
export function createStatisticsStatement(field: FieldIndexTarget): string | undefined {
  const kind = valueKind(field);
  if (kind === 'list' || kind === 'object') return undefined;
  const expression = kind === 'text' ? textPrefix(typedValue(field.key, kind, 'data')) : typedValue(field.key, kind, 'data');
  return `CREATE STATISTICS IF NOT EXISTS ${statisticsName(field.id)} ON (${expression.text}) FROM records`;
}

/** Runs statements on one pooled connection outside any transaction (session advisory locks need one session). */
async function withIndexSession<T>(em: EntityManager, work: (run: (fragment: SqlFragment) => Promise<Record<string, unknown>[]>) => Promise<T>): Promise<T> {
  return withSession(em, (query) => work((fragment) => query(fragment.text, fragment.params)));
}

export type IndexOutcome = 'ready' | 'failed' | 'dropped' | 'busy' | 'nothing-to-do';

export interface ReconcileOptions {
  /** Wait for another session working on the same field (requests) or skip it (the cron task). */
  wait: boolean;
  logger?: Logger;
}

/**
 * Brings a field's index in line with its `index_status`: builds it when `pending`, drops it when
 * `dropping`. A failed build drops the INVALID index it leaves and records the error on the field.
 */
export async function reconcileFieldIndex(em: EntityManager, fieldId: string, options: ReconcileOptions): Promise<IndexOutcome> {
  return withIndexSession(em, async (run) => {
    const lockKey = sql`hashtext('data-models.field-index'), hashtext(${fieldId})`;
    if (options.wait) {
      await run(sql`SELECT pg_advisory_lock(${lockKey})`);
    } else {
      const [{ locked }] = await run(sql`SELECT pg_try_advisory_lock(${lockKey}) AS locked`);
      if (!locked) return 'busy';
    }
    try {
      const [row] = await run(sql`
        SELECT f.id, f.model_id, f.key, f.type, f.config, f.indexed, f.index_status, f.archived_at
        FROM data_fields f WHERE f.id = ${fieldId}`);
      if (!row) return 'nothing-to-do';
      const name = indexName(fieldId);
      if (row['index_status'] === 'dropping' || (row['index_status'] === 'pending' && (!row['indexed'] || row['archived_at']))) {
        await run(sql`DROP INDEX CONCURRENTLY IF EXISTS ${trustedSql(name)}`);
        await run(sql`DROP STATISTICS IF EXISTS ${trustedSql(statisticsName(fieldId))}`);
        await run(sql`UPDATE data_fields SET index_status = NULL, index_error = NULL WHERE id = ${fieldId} AND index_status = ${row['index_status']}`);
        return 'dropped';
      }
      if (row['index_status'] !== 'pending') return 'nothing-to-do';
      const target: FieldIndexTarget = {
        id: String(row['id']),
        modelId: String(row['model_id']),
        key: String(row['key']),
        type: row['type'] as FieldType,
        config: (row['config'] ?? {}) as Record<string, unknown>,
      };
      // A previous attempt (or the old type's index, after a type change) must not survive.
      await run(sql`DROP INDEX CONCURRENTLY IF EXISTS ${trustedSql(name)}`);
      try {
        await run(trustedSql(createIndexStatement(target)));
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        options.logger?.warn({ fieldId, err: error }, 'field index build failed');
        // CREATE INDEX CONCURRENTLY leaves an INVALID index behind when it fails.
        await run(sql`DROP INDEX CONCURRENTLY IF EXISTS ${trustedSql(name)}`);
        await run(sql`UPDATE data_fields SET index_status = 'failed', index_error = ${message} WHERE id = ${fieldId} AND index_status = 'pending'`);
        return 'failed';
      }
      const statistics = createStatisticsStatement(target);
      if (statistics) {
        await run(sql`DROP STATISTICS IF EXISTS ${trustedSql(statisticsName(fieldId))}`);
        await run(trustedSql(statistics));
        // Sample-based (not a full scan): gives the new statistics values now rather than at the next autovacuum.
        await run(trustedSql('ANALYZE records'));
      }
      await run(sql`UPDATE data_fields SET index_status = 'ready', index_error = NULL WHERE id = ${fieldId} AND index_status = 'pending'`);
      return 'ready';
    } finally {
      await run(sql`SELECT pg_advisory_unlock(${lockKey})`);
    }
  });
}
