import { badRequest } from '@mrp/platform';
import { valueKind, type FieldDefinition, type ValueKind } from '@mrp/field-validation';
import { exactTimestamp, isOrderedKind, rawText, textPrefix, typedParam, typedValue } from './field-expressions';
import { DEFAULT_SORT, DEFAULT_TRASH_SORT, MAX_SORT_TERMS } from './query-limits';
import { joinSql, sql, trustedSql, type SqlFragment } from './sql';

/** One ORDER BY column; a sort term has one or two (text sorts by its indexed prefix, then in full). */
export interface OrderColumn {
  expression: SqlFragment;
  descending: boolean;
  nullable: boolean;
  /** The same expression computed from a cursor value. */
  fromCursor(value: NonNullable<KeysetValue>): SqlFragment;
}

/**
 * A sort value the keyset condition compares with: the text a cursor carries (a bind value), NULL,
 * or a SQL expression of that same text (read from the cursor's row in the same statement).
 */
export type KeysetValue = string | null | SqlFragment;

export interface SortTerm {
  key: string;
  descending: boolean;
  kind: ValueKind | 'timestamptz';
  /** Text of the row's sort value as cursors carry it (NULL when the record has none). */
  cursorValue: SqlFragment;
  columns: OrderColumn[];
}

export interface SortPlan {
  terms: SortTerm[];
  /** The tiebreaker every sort ends with, in the direction of the last term. */
  idDescending: boolean;
  /** Canonical form, e.g. `-createdAt,amount:NUMBER`; cursors are bound to it. */
  signature: string;
}

function textColumns(expression: SqlFragment, descending: boolean, nullable: boolean): OrderColumn[] {
  return [
    { expression: textPrefix(expression), descending, nullable, fromCursor: (value) => textPrefix(typedParam('text', value)) },
    { expression, descending, nullable, fromCursor: (value) => typedParam('text', value) },
  ];
}

const TIMESTAMP_COLUMNS: Readonly<Record<string, string>> = { createdAt: 'r.created_at', updatedAt: 'r.updated_at', deletedAt: 'r.deleted_at' };

function systemTerm(key: string, descending: boolean, trash: boolean): SortTerm | undefined {
  // Only deleted records have a deletion time (never null there).
  if (key === 'deletedAt' && !trash) return undefined;
  switch (key) {
    case 'createdAt':
    case 'updatedAt':
    case 'deletedAt': {
      const column = TIMESTAMP_COLUMNS[key];
      return {
        key,
        descending,
        kind: 'timestamptz',
        cursorValue: exactTimestamp(column),
        columns: [{ expression: trustedSql(column), descending, nullable: false, fromCursor: (value) => typedParam('timestamptz', value) }],
      };
    }
    case 'title':
      return { key, descending, kind: 'text', cursorValue: trustedSql('r.title'), columns: textColumns(trustedSql('r.title'), descending, false) };
    default:
      return undefined;
  }
}

function fieldTerm(field: FieldDefinition, descending: boolean): SortTerm {
  const kind = valueKind(field);
  if (!isOrderedKind(kind)) {
    throw badRequest(`Cannot sort by "${field.key}": ${field.type} fields have no order`);
  }
  const expression = typedValue(field.key, kind);
  const columns: OrderColumn[] =
    kind === 'text'
      ? textColumns(expression, descending, true)
      : [{ expression, descending, nullable: true, fromCursor: (value) => typedParam(kind, value) }];
  return { key: field.key, descending, kind, cursorValue: rawText(field.key), columns };
}

/**
 * Parses `sort` (`createdAt`, `-createdAt`, `updatedAt`, `title` or a field key, and in the trash
 * `deletedAt`; `-` for descending, up to 3 comma-separated). Anything unknown or malformed is a
 * 400, never ignored.
 */
export function parseSort(raw: string | undefined, fields: ReadonlyMap<string, FieldDefinition>, { trash = false } = {}): SortPlan {
  const text = raw === undefined ? (trash ? DEFAULT_TRASH_SORT : DEFAULT_SORT) : raw;
  const parts = text.split(',');
  if (parts.length > MAX_SORT_TERMS) throw badRequest(`sort takes at most ${MAX_SORT_TERMS} keys`);
  const terms: SortTerm[] = [];
  for (const part of parts) {
    const descending = part.startsWith('-');
    const key = descending ? part.slice(1) : part;
    if (key === '') throw badRequest('sort has an empty key');
    if (terms.some((term) => term.key === key)) throw badRequest(`sort names "${key}" twice`);
    const system = systemTerm(key, descending, trash);
    const field = system ? undefined : fields.get(key);
    if (!system && !field) throw badRequest(`Cannot sort by "${key}": no such field`);
    terms.push(system ?? fieldTerm(field as FieldDefinition, descending));
  }
  const idDescending = terms[terms.length - 1].descending;
  const signature = terms.map((term) => `${term.descending ? '-' : ''}${term.key}:${term.kind}`).join(',');
  return { terms, idDescending, signature };
}

function idColumn(plan: SortPlan): OrderColumn {
  return { expression: trustedSql('r.id'), descending: plan.idDescending, nullable: false, fromCursor: (value) => typedParam('uuid', value) };
}

export function orderByClause(plan: SortPlan): SqlFragment {
  // Default null placement (ASC NULLS LAST, DESC NULLS FIRST) is what a btree scans in either direction.
  const columns = [...plan.terms.flatMap((term) => term.columns), idColumn(plan)];
  return joinSql(
    columns.map((column) => sql`${column.expression} ${trustedSql(column.descending ? 'DESC' : 'ASC')}`),
    ', ',
  );
}

/** `column` comes strictly after `value` in its direction (nulls last ascending, first descending). */
function after(column: OrderColumn, value: KeysetValue): SqlFragment {
  if (value === null) {
    return column.descending ? sql`${column.expression} IS NOT NULL` : trustedSql('FALSE');
  }
  const comparison = sql`${column.expression} ${trustedSql(column.descending ? '<' : '>')} ${column.fromCursor(value)}`;
  return column.nullable && !column.descending ? sql`(${comparison} OR ${column.expression} IS NULL)` : comparison;
}

function equalTo(column: OrderColumn, value: KeysetValue): SqlFragment {
  return value === null ? sql`${column.expression} IS NULL` : sql`${column.expression} = ${column.fromCursor(value)}`;
}

/**
 * Rows after the cursor row in the sort order. When every column runs the same way and no NULL
 * can get in the way, a row comparison lets the index seek straight to the page; otherwise the
 * expanded form (c1 > v1) OR (c1 = v1 AND c2 > v2) ... is used.
 */
export function keysetCondition(plan: SortPlan, termValues: readonly KeysetValue[], id: string): SqlFragment {
  const pairs: Array<{ column: OrderColumn; value: KeysetValue }> = [];
  plan.terms.forEach((term, index) => {
    for (const column of term.columns) pairs.push({ column, value: termValues[index] });
  });
  pairs.push({ column: idColumn(plan), value: id });

  const direction = pairs[0].column.descending;
  const sameDirection = pairs.every((pair) => pair.column.descending === direction);
  const nullSafe = pairs.every((pair) => pair.value !== null && (!pair.column.nullable || pair.column.descending));
  if (sameDirection && nullSafe) {
    const left = joinSql(pairs.map((pair) => pair.column.expression), ', ');
    const right = joinSql(pairs.map((pair) => pair.column.fromCursor(pair.value as NonNullable<KeysetValue>)), ', ');
    return sql`(${left}) ${trustedSql(direction ? '<' : '>')} (${right})`;
  }
  const alternatives = pairs.map((pair, index) =>
    joinSql([...pairs.slice(0, index).map((before) => equalTo(before.column, before.value)), after(pair.column, pair.value)], ' AND '),
  );
  return sql`(${joinSql(alternatives.map((alternative) => sql`(${alternative})`), ' OR ')})`;
}
