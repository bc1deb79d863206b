import { valueKind, type FieldDefinition, type FilterNode, type ValueKind } from '@mrp/field-validation';
import { arrayType, isEmptyJson, textPrefix, typedParam, typedValue } from './field-expressions';
import { joinSql, sql, trustedSql, type SqlFragment } from './sql';

type TargetKind = ValueKind | 'uuid' | 'timestamptz';

interface FilterTarget {
  expression: SqlFragment;
  kind: TargetKind;
  /** SQL that is true when the target has no value. */
  empty: SqlFragment;
}

const FALSE = trustedSql('FALSE');

const SYSTEM_TARGETS: Readonly<Record<string, FilterTarget>> = {
  createdAt: { expression: trustedSql('r.created_at'), kind: 'timestamptz', empty: FALSE },
  updatedAt: { expression: trustedSql('r.updated_at'), kind: 'timestamptz', empty: FALSE },
  title: { expression: trustedSql('r.title'), kind: 'text', empty: trustedSql(`r.title = ''`) },
  id: { expression: trustedSql('r.id'), kind: 'uuid', empty: FALSE },
};

function resolveTarget(key: string, fields: ReadonlyMap<string, FieldDefinition>): FilterTarget {
  if (Object.hasOwn(SYSTEM_TARGETS, key)) return SYSTEM_TARGETS[key];
  const field = fields.get(key);
  // validateFilterTree already refused unknown keys; reaching this is a bug, not bad input.
  if (!field) throw new Error(`Filter names unknown field "${key}" after validation`);
  const kind = valueKind(field);
  return { expression: typedValue(key, kind), kind, empty: isEmptyJson(key) };
}

/** LIKE pattern with the caller's text taken literally (`%`, `_` and `\` escaped). */
export function likePattern(text: string, anchored: 'contains' | 'startsWith'): string {
  const escaped = text.replace(/[\\%_]/g, (character) => `\\${character}`);
  return anchored === 'contains' ? `%${escaped}%` : `${escaped}%`;
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [value];
}

function anyOf(target: FilterTarget, values: unknown[]): SqlFragment {
  const membership =
    values.length === 1
      ? sql`${target.expression} = ${typedParam(target.kind, values[0])}`
      : sql`${target.expression} = ANY(ARRAY[${values}]::${trustedSql(arrayType(target.kind))})`;
  if (target.kind !== 'text') return membership;
  // Restates the test on the 200-character prefix so the prefix index of an indexed text field applies.
  const prefixes = values.map((value) => textPrefix(typedParam('text', value)));
  const prefixTest =
    prefixes.length === 1
      ? sql`${textPrefix(target.expression)} = ${prefixes[0]}`
      : sql`${textPrefix(target.expression)} = ANY(ARRAY[${joinSql(prefixes, ', ')}])`;
  return sql`(${prefixTest} AND ${membership})`;
}

/** Containment in a JSON array value: `@>` is what a GIN index on the field answers. */
function listContains(target: FilterTarget, value: unknown): SqlFragment {
  return sql`${target.expression} @> ${JSON.stringify([value])}::jsonb`;
}

function compileCondition(condition: { field: string; op: string; value?: unknown }, fields: ReadonlyMap<string, FieldDefinition>): SqlFragment {
  const target = resolveTarget(condition.field, fields);
  const { expression, kind } = target;
  const value = condition.value;
  switch (condition.op) {
    case 'isEmpty':
      return sql`(${target.empty})`;
    case 'isNotEmpty':
      return sql`NOT (${target.empty})`;
    case 'eq':
      if (kind === 'list') return listContains(target, value);
      return anyOf(target, [value]);
    case 'neq':
      if (kind === 'list') return sql`NOT COALESCE(${listContains(target, value)}, false)`;
      // Records without a value are "not equal" too, as a spreadsheet user expects.
      return sql`${expression} IS DISTINCT FROM ${typedParam(kind, value)}`;
    case 'lt':
      return sql`${expression} < ${typedParam(kind, value)}`;
    case 'lte':
      return sql`${expression} <= ${typedParam(kind, value)}`;
    case 'gt':
      return sql`${expression} > ${typedParam(kind, value)}`;
    case 'gte':
      return sql`${expression} >= ${typedParam(kind, value)}`;
    case 'contains':
      if (kind === 'list') return listContains(target, value);
      return sql`${expression} ILIKE ${likePattern(String(value), 'contains')}`;
    case 'startsWith':
      return sql`${expression} ILIKE ${likePattern(String(value), 'startsWith')}`;
    case 'in': {
      const values = asList(value);
      if (kind === 'list') return sql`(${joinSql(values.map((item) => listContains(target, item)), ' OR ')})`;
      return anyOf(target, values);
    }
    case 'notIn': {
      const values = asList(value);
      if (kind === 'list') {
        return sql`NOT COALESCE((${joinSql(values.map((item) => listContains(target, item)), ' OR ')}), false)`;
      }
      return sql`(${expression} IS NULL OR NOT (${expression} = ANY(ARRAY[${values}]::${trustedSql(arrayType(kind))})))`;
    }
    default:
      throw new Error(`Filter operator "${condition.op}" has no SQL translation`);
  }
}

/**
 * Compiles a filter tree that validateFilterTree accepted into a SQL condition on `records r`.
 * Values are always bind parameters; field keys (validated) are the only text spliced in.
 */
export function compileFilter(node: FilterNode, fields: ReadonlyMap<string, FieldDefinition>): SqlFragment {
  if ('and' in node) {
    return node.and.length === 0 ? trustedSql('TRUE') : sql`(${joinSql(node.and.map((child) => compileFilter(child, fields)), ' AND ')})`;
  }
  if ('or' in node) {
    return node.or.length === 0 ? trustedSql('FALSE') : sql`(${joinSql(node.or.map((child) => compileFilter(child, fields)), ' OR ')})`;
  }
  if ('not' in node) {
    // A NULL inside must count as "does not match" before it is negated.
    return sql`NOT COALESCE(${compileFilter(node.not, fields)}, false)`;
  }
  return compileCondition(node, fields);
}
