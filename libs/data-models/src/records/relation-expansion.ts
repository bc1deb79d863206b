import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Type } from '@sinclair/typebox';
import { isUuidString, validationFailed } from '@mrp/platform';
import { isLive, type FieldShape } from '../models/model-store';
import { runSql, sql } from '../query/sql';
import { visibleTo } from './record-access';
import type { RecordOutput } from './schemas';

/** The `expand` input of the record reads: which relation fields answer titles beside the ids. */
export const ExpandInput = Type.String({
  minLength: 1,
  maxLength: 2000,
  description:
    'Comma-separated keys of RELATION fields: each related id becomes {"id","title"}, or {"id"} alone for a record the caller cannot read ' +
    '(restricted, deleted or missing); any other key is a 400',
});

/** A related record as an expanded relation answers it: no title when the caller may not read it. */
export interface ExpandedRelation {
  id: string;
  title?: string;
}

/**
 * The relation fields a read asked to expand, checked against the model's live fields; undefined
 * when it asked for none. A key that is unknown, archived or not a RELATION is refused by name.
 */
export function parseExpansion(text: string | undefined, fields: readonly FieldShape[]): FieldShape[] | undefined {
  if (text === undefined) return undefined;
  const byKey = new Map(fields.filter(isLive).map((field) => [field.key, field]));
  const keys = [...new Set(text.split(',').map((key) => key.trim()))];
  const problems = keys.flatMap((key) => {
    if (key === '') return [{ field: 'expand', code: 'invalid_format', message: 'An empty key: list relation field keys separated by commas' }];
    const field = byKey.get(key);
    if (!field) return [{ field: 'expand', code: 'unknown_field', message: `Unknown field "${key}"` }];
    if (field.type !== 'RELATION') return [{ field: 'expand', code: 'invalid_value', message: `Field "${key}" is not a RELATION field` }];
    return [];
  });
  if (problems.length > 0) throw validationFailed(problems, 'expand names keys that are not relation fields of the model');
  return keys.map((key) => byKey.get(key) as FieldShape);
}

const targetOf = (field: FieldShape) => String(field.config['targetModel'] ?? '');
const idsIn = (value: unknown): string[] => (Array.isArray(value) ? value : value === null || value === undefined ? [] : [value]).filter(isUuidString);

/**
 * Replaces, in each record's data, the ids of the expanded relation fields with {id, title}: one
 * statement for all records and fields, whatever their number. Only live records of the field's
 * target model that the caller may see get a title; any other id answers exactly like a missing one.
 */
export async function expandRelations(
  em: EntityManager,
  scope: { organizationId: string; roleIds: readonly string[] },
  expanded: readonly FieldShape[],
  records: readonly RecordOutput[],
): Promise<void> {
  const ids = new Set<string>();
  for (const record of records) for (const field of expanded) for (const id of idsIn(record.data[field.key])) ids.add(id);
  const titles = new Map<string, string>();
  if (ids.size > 0) {
    const targets = [...new Set(expanded.map(targetOf))];
    // One array bind value each, however many ids: a page of multiple relations may name thousands.
    const rows = await runSql<{ id: string; title: string; model_key: string }>(
      em,
      sql`SELECT r.id, r.title, m.key AS model_key FROM records r
        JOIN data_models m ON m.id = r.model_id AND m.archived_at IS NULL
        WHERE r.organization_id = ${scope.organizationId} AND m.organization_id = ${scope.organizationId}
          AND m.key = ANY(${`{${targets.join(',')}}`}::text[])
          AND r.id = ANY(${`{${[...ids].join(',')}}`}::uuid[]) AND r.deleted_at IS NULL AND ${visibleTo(scope.roleIds)}`,
    );
    for (const row of rows) titles.set(`${row.model_key}:${row.id}`, row.title);
  }
  for (const record of records) {
    for (const field of expanded) {
      const value = record.data[field.key];
      if (value === null || value === undefined) continue;
      const target = targetOf(field);
      const expand = (id: unknown): ExpandedRelation => {
        const title = titles.get(`${target}:${String(id)}`);
        return title === undefined ? { id: String(id) } : { id: String(id), title };
      };
      record.data[field.key] = Array.isArray(value) ? value.map(expand) : expand(value);
    }
  }
}

/**
 * What an expanded answer adds to its version's variant: the related titles can change while the
 * record itself does not, so its entity tag must change with them.
 */
export function expansionVariant(expanded: readonly FieldShape[], record: RecordOutput): string {
  const shown = expanded.map((field) => [field.key, record.data[field.key] ?? null]);
  return `.x${createHash('sha256').update(JSON.stringify(shown)).digest('hex').slice(0, 12)}`;
}
