import type { EntityManager } from '@mikro-orm/postgresql';
import { isUuidString, type ErrorDetail } from '@mrp/platform';
import { isLive, type FieldShape } from '../models/model-store';
import { runSql, sql } from '../query/sql';
import { visibleTo } from './record-access';

/**
 * RELATION values must name live records of the target model, in the same organization, that the
 * caller can see: a restricted record the caller cannot see is reported exactly like a missing one.
 */
export async function checkRelationTargets(
  em: EntityManager,
  scope: { organizationId: string; roleIds: readonly string[] },
  fields: readonly FieldShape[],
  values: Readonly<Record<string, unknown>>,
): Promise<ErrorDetail[]> {
  const errors: ErrorDetail[] = [];
  for (const field of fields) {
    if (field.type !== 'RELATION' || !isLive(field)) continue;
    const value = values[field.key];
    if (value === null || value === undefined) continue;
    const ids = (Array.isArray(value) ? value : [value]).map(String);
    const targetKey = String(field.config['targetModel'] ?? '');
    const wellFormed = ids.filter(isUuidString);
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
    ids.forEach((id, index) => {
      if (found.has(id)) return;
      errors.push({
        field: Array.isArray(value) ? `${field.key}[${index}]` : field.key,
        code: 'not_found',
        message: `No record ${id} in model "${targetKey}"`,
      });
    });
  }
  return errors;
}
