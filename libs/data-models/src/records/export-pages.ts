import type { EntityManager } from '@mikro-orm/postgresql';
import { withStatementTimeout } from '@mrp/platform';
import { runSql } from '../query/sql';
import { buildListQuery, sortValueColumn, type ListQuerySpec } from './list-query';
import type { RecordRow } from './record-rows';

/** Rows an export reads per statement: each page is its own statement, so no statement holds a connection for a whole export. */
export const EXPORT_PAGE_SIZE = 1000;

/** A listed row: the record's columns, its sort values and its expanded relations' titles. */
export type ListedRow = RecordRow & Record<string, unknown>;

export interface ListedPagesOptions {
  pageSize?: number;
  /** The most one page's statement may run, when it may run longer than the connection's limit. */
  statementTimeoutMs?: number;
}

/**
 * Every record a list would show, page after page by keyset (the list's own query, so filter,
 * search, sort and row-level access are the list's), without holding more than one page: the
 * next page is read only when the consumer asks for it.
 */
export async function* listedPages(
  em: EntityManager,
  spec: Omit<ListQuerySpec, 'after' | 'limit'>,
  { pageSize = EXPORT_PAGE_SIZE, statementTimeoutMs }: ListedPagesOptions = {},
): AsyncGenerator<ListedRow[]> {
  let after: ListQuerySpec['after'];
  for (;;) {
    const query = buildListQuery({ ...spec, after, limit: pageSize });
    const rows =
      statementTimeoutMs === undefined
        ? await runSql<ListedRow>(em, query)
        : await withStatementTimeout(em, statementTimeoutMs, (within) => runSql<ListedRow>(within, query));
    if (rows.length > 0) yield rows;
    if (rows.length < pageSize) return;
    const last = rows[rows.length - 1];
    after = { values: spec.sort.terms.map((_, index) => (last[sortValueColumn(index)] as string | null) ?? null), id: last.id };
  }
}
