import type { EntityManager } from '@mikro-orm/postgresql';
import { runSql } from '../query/sql';
import { buildListQuery, sortValueColumn, type ListQuerySpec } from './list-query';
import type { RecordRow } from './record-rows';

/** Rows an export reads per statement: each page is its own short statement under the request's timeout. */
export const EXPORT_PAGE_SIZE = 1000;

type ListedRow = RecordRow & Record<string, string | null>;

/**
 * Every record a list would show, page after page by keyset (the list's own query, so filter,
 * search, sort and row-level access are the list's), without holding more than one page: the
 * next page is read only when the consumer asks for it.
 */
export async function* listedPages(
  em: EntityManager,
  spec: Omit<ListQuerySpec, 'after' | 'limit'>,
  pageSize = EXPORT_PAGE_SIZE,
): AsyncGenerator<RecordRow[]> {
  let after: ListQuerySpec['after'];
  for (;;) {
    const rows = await runSql<ListedRow>(em, buildListQuery({ ...spec, after, limit: pageSize }));
    if (rows.length > 0) yield rows;
    if (rows.length < pageSize) return;
    const last = rows[rows.length - 1];
    after = { values: spec.sort.terms.map((_, index) => last[sortValueColumn(index)] ?? null), id: last.id };
  }
}
