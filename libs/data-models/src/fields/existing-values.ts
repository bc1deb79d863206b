import type { EntityManager } from '@mikro-orm/postgresql';
import type { ErrorDetail } from '@mrp/platform';
import { validateFieldValue, type FieldDefinition } from '@mrp/field-validation';
import type { FieldShape } from '../models/model-store';
import { exactTimestamp, isEmptyJson, jsonValue } from '../query/field-expressions';
import { runSql, sql, trustedSql, type SqlFragment } from '../query/sql';
import { canonical, withFormulas } from '../records/record-data';

/**
 * Work on a model's existing records when its fields change: re-validating stored values under a
 * new type or configuration, counting records a newly required field would leave empty, and
 * recomputing formulas. All of it runs in the field procedure's transaction, in keyset batches.
 */

const BATCH_SIZE = 1000;
/** A refused change lists this many offending records, then a count. */
const MAX_REPORTED = 10;

export interface ModelScope {
  organizationId: string;
  modelId: string;
}

async function forEachLiveBatch<T extends { id: string }>(
  em: EntityManager,
  scope: ModelScope,
  columns: SqlFragment,
  condition: SqlFragment,
  visit: (rows: T[]) => Promise<void> | void,
): Promise<void> {
  let after: { position: string; id: string } | undefined;
  for (;;) {
    // Walks the (organization, model, created_at, id) index in pages, never holding a whole model in memory.
    const rows = await runSql<T & { position: string }>(
      em,
      sql`SELECT r.id, ${exactTimestamp('r.created_at')} AS position, ${columns}
        FROM records r
        WHERE r.organization_id = ${scope.organizationId} AND r.model_id = ${scope.modelId} AND r.deleted_at IS NULL
          AND ${condition}
          ${after ? sql`AND (r.created_at, r.id) < (${after.position}::timestamptz, ${after.id}::uuid)` : trustedSql('')}
        ORDER BY r.created_at DESC, r.id DESC
        LIMIT ${BATCH_SIZE}`,
    );
    if (rows.length === 0) return;
    await visit(rows);
    const last = rows[rows.length - 1];
    after = { position: last.position, id: last.id };
    if (rows.length < BATCH_SIZE) return;
  }
}

export interface ValueCheck {
  errors: ErrorDetail[];
  /** Values that are valid but normalise differently under the new definition, by record id. */
  rewrites: Map<string, unknown>;
}

/** Checks every stored value of a field against a new definition of it. */
export async function checkExistingValues(em: EntityManager, scope: ModelScope, definition: FieldDefinition): Promise<ValueCheck> {
  const failures: ErrorDetail[] = [];
  let failureCount = 0;
  const rewrites = new Map<string, unknown>();
  await forEachLiveBatch<{ id: string; value: unknown }>(
    em,
    scope,
    sql`${jsonValue(definition.key)} AS value`,
    sql`NOT ${isEmptyJson(definition.key)}`,
    (rows) => {
      for (const row of rows) {
        const result = validateFieldValue(definition, row.value);
        if (!result.ok) {
          failureCount += 1;
          if (failures.length < MAX_REPORTED) {
            failures.push({ field: definition.key, code: result.errors[0].code, message: `Record ${row.id}: ${result.errors[0].message}` });
          }
        } else if (canonical(result.value) !== canonical(row.value)) {
          rewrites.set(row.id, result.value);
        }
      }
    },
  );
  if (failureCount > failures.length) {
    failures.push({
      field: definition.key,
      code: failures[0].code,
      message: `${failureCount} records in all have values that do not fit the new definition`,
    });
  }
  return { errors: failures, rewrites };
}

export async function rewriteValues(em: EntityManager, key: string, rewrites: ReadonlyMap<string, unknown>): Promise<void> {
  const ids = [...rewrites.keys()];
  for (let start = 0; start < ids.length; start += BATCH_SIZE) {
    const chunk = ids.slice(start, start + BATCH_SIZE);
    const values = chunk.map((id) => JSON.stringify(rewrites.get(id)));
    await runSql(
      em,
      sql`UPDATE records r SET data = jsonb_set(r.data, ARRAY[${key}]::text[], v.value), version = r.version + 1
        FROM (SELECT unnest(ARRAY[${chunk}]::uuid[]) AS id, unnest(ARRAY[${values}]::jsonb[]) AS value) v
        WHERE r.id = v.id`,
    );
  }
}

/** How many live records have no value for a field (what making it required would break). */
export async function countEmptyValues(em: EntityManager, scope: ModelScope, key: string): Promise<number> {
  const [row] = await runSql<{ count: number }>(
    em,
    sql`SELECT count(*)::int AS count FROM records r
      WHERE r.organization_id = ${scope.organizationId} AND r.model_id = ${scope.modelId} AND r.deleted_at IS NULL
        AND ${isEmptyJson(key)}`,
  );
  return row.count;
}

/**
 * Recomputes every formula of every live record after a formula-relevant field change; answers how
 * many records it changed that are not in `alreadyChanged` (a count, not the ids: a model may hold
 * millions of records).
 */
export async function recomputeFormulas(
  em: EntityManager,
  scope: ModelScope,
  fields: readonly FieldShape[],
  alreadyChanged: { has(id: string): boolean } = new Set<string>(),
): Promise<number> {
  let changed = 0;
  await forEachLiveBatch<{ id: string; data: Record<string, unknown> }>(em, scope, trustedSql('r.data'), trustedSql('TRUE'), async (rows) => {
    const ids: string[] = [];
    const values: string[] = [];
    for (const row of rows) {
      const next = withFormulas(fields, row.data);
      if (canonical(next) !== canonical(row.data)) {
        ids.push(row.id);
        values.push(JSON.stringify(next));
      }
    }
    if (ids.length === 0) return;
    changed += ids.filter((id) => !alreadyChanged.has(id)).length;
    await runSql(
      em,
      sql`UPDATE records r SET data = v.data, version = r.version + 1
        FROM (SELECT unnest(ARRAY[${ids}]::uuid[]) AS id, unnest(ARRAY[${values}]::jsonb[]) AS data) v
        WHERE r.id = v.id`,
    );
  });
  return changed;
}
