import type { EntityManager } from '@mikro-orm/postgresql';
import { isUuidString, type ErrorDetail } from '@mrp/platform';
import { isLive, type FieldShape } from '../models/model-store';
import { runSql, sql } from '../query/sql';
import { visibleTo } from './record-access';

type RelationScope = { organizationId: string; roleIds: readonly string[] };

/**
 * RELATION values must name live records of the target model, in the same organization, that the
 * caller can see: a restricted record the caller cannot see is reported exactly like a missing one.
 */
export async function checkRelationTargets(
  em: EntityManager,
  scope: RelationScope,
  fields: readonly FieldShape[],
  values: Readonly<Record<string, unknown>>,
): Promise<ErrorDetail[]> {
  const [errors] = await checkRelationTargetsOfBatch(em, scope, fields, [values]);
  return errors;
}

/**
 * checkRelationTargets for many records at once, with one query per relation field for the whole
 * batch; the problems of each record, in the order given (field paths relative to its data).
 */
export async function checkRelationTargetsOfBatch(
  em: EntityManager,
  scope: RelationScope,
  fields: readonly FieldShape[],
  batch: ReadonlyArray<Readonly<Record<string, unknown>>>,
): Promise<ErrorDetail[][]> {
  const errors: ErrorDetail[][] = batch.map(() => []);
  for (const field of fields) {
    if (field.type !== 'RELATION' || !isLive(field)) continue;
    const named = batch.map((values) => {
      const value = values[field.key];
      if (value === null || value === undefined) return undefined;
      return { many: Array.isArray(value), ids: (Array.isArray(value) ? value : [value]).map(String) };
    });
    const wellFormed = [...new Set(named.flatMap((entry) => entry?.ids.filter(isUuidString) ?? []))];
    if (named.every((entry) => entry === undefined)) continue;
    const targetKey = String(field.config['targetModel'] ?? '');
    // The target model is joined in, not looked up first: one round trip per relation field.
    const found = new Set(
      wellFormed.length > 0
        ? (
            await runSql<{ id: string }>(
              em,
              sql`SELECT r.id FROM records r
                JOIN data_models m ON m.id = r.model_id AND m.organization_id = ${scope.organizationId} AND m.key = ${targetKey}
                  AND m.archived_at IS NULL
                WHERE r.organization_id = ${scope.organizationId} AND r.deleted_at IS NULL
                  AND r.id = ANY(ARRAY[${wellFormed}]::uuid[]) AND ${visibleTo(scope.roleIds)}`,
            )
          ).map((row) => row.id)
        : [],
    );
    named.forEach((entry, recordIndex) => {
      entry?.ids.forEach((id, index) => {
        if (found.has(id)) return;
        errors[recordIndex].push({
          field: entry.many ? `${field.key}[${index}]` : field.key,
          code: 'not_found',
          message: `No record ${id} in model "${targetKey}"`,
        });
      });
    });
  }
  return errors;
}
