import type { EntityManager } from '@mikro-orm/postgresql';
import { withStatementTimeout } from '@mrp/platform';
import { joinSql, runSql, sql, trustedSql, type SqlFragment } from '../query/sql';
import type { ExportLineSql } from './export-text';
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

type PageSpec = Omit<ListQuerySpec, 'after' | 'limit'>;

interface Page<T> {
  content: T;
  rows: number;
  /** The last row's id and sort values; undefined for an empty page. */
  last: Record<string, unknown> | undefined;
}

/**
 * Pages of the list's own query (so filter, search, sort and row-level access are the list's) by
 * keyset, each read only when the consumer asks for it, by a statement of its own.
 */
async function* keysetPages<T>(
  em: EntityManager,
  spec: PageSpec,
  { pageSize = EXPORT_PAGE_SIZE, statementTimeoutMs }: ListedPagesOptions,
  read: (em: EntityManager, query: SqlFragment) => Promise<Page<T>>,
): AsyncGenerator<T> {
  let after: ListQuerySpec['after'];
  for (;;) {
    const query = buildListQuery({ ...spec, after, limit: pageSize });
    const page = statementTimeoutMs === undefined ? await read(em, query) : await withStatementTimeout(em, statementTimeoutMs, (within) => read(within, query));
    if (page.rows > 0) yield page.content;
    if (page.rows < pageSize || !page.last) return;
    const last = page.last;
    after = { values: spec.sort.terms.map((_, index) => (last[sortValueColumn(index)] as string | null) ?? null), id: last['id'] as string };
  }
}

/** Every record a list would show, as its rows, without holding more than one page. */
export function listedPages(em: EntityManager, spec: PageSpec, options: ListedPagesOptions = {}): AsyncGenerator<ListedRow[]> {
  return keysetPages(em, spec, options, async (within, query) => {
    const rows = await runSql<ListedRow>(within, query);
    return { content: rows, rows: rows.length, last: rows.at(-1) };
  });
}

/**
 * Every record a list would show, each page as one text (its rows' lines, built by the database in
 * the list's order): one value to read per page, not a row per record.
 */
export function textPages(em: EntityManager, spec: PageSpec, line: ExportLineSql, options: ListedPagesOptions = {}): AsyncGenerator<string> {
  const sortValues = spec.sort.terms.map((_, index) => trustedSql(`page.${sortValueColumn(index)}`));
  const keyColumns = joinSql([trustedSql('page.id'), ...sortValues], ', ');
  return keysetPages(em, { ...spec, columns: line.columns }, options, async (within, query) => {
    // The list query's ORDER BY sets the order of its rows, which row_number keeps.
    const [row] = await runSql<{ text: string | null; lines: number } & Record<string, unknown>>(
      within,
      sql`WITH listed AS MATERIALIZED (${query}),
        page AS MATERIALIZED (
          SELECT row_number() OVER () AS position, listed.id, ${joinSql(
            spec.sort.terms.map((_, index) => trustedSql(`listed.${sortValueColumn(index)}`)),
            ', ',
          )}, ${line.line} AS line
          FROM listed)
        SELECT (SELECT string_agg(page.line, '' ORDER BY page.position) FROM page) AS text, (SELECT count(*)::int FROM page) AS lines, last.*
        FROM (VALUES (1)) AS always
        LEFT JOIN LATERAL (SELECT ${keyColumns} FROM page ORDER BY page.position DESC LIMIT 1) AS last ON true`,
    );
    return { content: row.text ?? '', rows: row.lines, last: row.id === null ? undefined : row };
  });
}
